/** The APBF/APBBF family's types: the parameters the model needs and the derived config. */
import type { Target } from '../../device/index.js';
import type { FilterConfig } from '../types.js';

export interface ApbfParams {
  k: number;
  l: number;
  /** Bits per segment (m). */
  segmentBits: number;
  /** Inserts per generation (g). */
  generation: number;
  /** Block size B in bits (1 for APBF). */
  blockBits: number;
  /** Bits set per block b (1 for APBF). */
  bitsPerBlock: number;
  keyBits: number;
  seed: number;
  /** Spare physical banks (the hardware's background-cleared banks). */
  spares: number;
}

export interface ApbfDerived extends ApbfParams, FilterConfig {
  name: string;
  filter: 'apbf' | 'apbbf';
  wordBits: number;
  tagBits: number;
  window: number;
  slack: number;
  /** Words per column block RAM. */
  columnDepth: number;
  target: Target;
  /**
   * A lane design's shard (src/families/apbf/lanes.ts; never from a written config): no response
   * queue — out_valid, out_tag and out_hit come straight from the pipeline, a cycle earlier, and
   * there is no out_ready (the lane dispatcher takes every response as it comes).
   */
  direct?: boolean;
  /** Set when the planner chose k, l and the sizes from `window` and `fp`. */
  planned?: { window: number; fp: number; maxNpws?: number; maxSlack?: number };
}
