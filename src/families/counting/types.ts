/** The counting/spectral family's types: the parameters the model needs and the derived config. */
import type { Target } from '../../device/index.js';
import type { FilterConfig } from '../types.js';

/**
 * Minimum selection (MS: insert increments every counter of the key, the count is the minimum),
 * minimum increase (MI: insert increments only the minimal counters) or recurring minimum (RM: a
 * primary MS filter and a secondary one for keys whose minimum is not recurring).
 */
export type Algorithm = 'ms' | 'mi' | 'rm';

export interface CountingParams {
  algorithm: Algorithm;
  /** Hashes = banks of the (primary) filter: one counter per bank per key (partitioned layout). */
  k: number;
  /** Bits per counter w; counters saturate at 2^w − 1 and at 0. */
  counterBits: number;
  /** Counters per bank (a power of two). */
  cellsPerBank: number;
  /** RM: counters per bank of the secondary filter (its k banks); 0 for MS and MI. */
  secondaryCellsPerBank: number;
  /** Counters per block RAM word (a power of two; lane 0 in the low bits). */
  lanes: number;
  /** The config has a remove (decrement) op. */
  remove: boolean;
  keyBits: number;
  seed: number;
}

export interface CountingDerived extends CountingParams, FilterConfig {
  name: string;
  filter: 'counting' | 'spectral';
  tagBits: number;
  /** Bits of a block RAM word actually used: lanes · counterBits. */
  wordBits: number;
  /** Words per bank, primary and secondary (0 without a secondary). */
  depth: number;
  secondaryDepth: number;
  /** Distinct keys the filter is sized for (n): the analytics' n and the conformance runs' length. */
  items: number;
  target: Target;
  /** Set when the planner chose the sizes: the items and fp it planned for. */
  planned?: { items: number; fp: number; counterBits: number; algorithm: Algorithm };
  /**
   * A lane design's shard (src/lanes/, ./lanes.ts): no response queue and no out_ready — the
   * response leaves the cycle it is formed (one cycle earlier), and the dispatcher takes it.
   */
  direct?: boolean;
}
