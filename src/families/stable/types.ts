/** The Stable Bloom filter family's types: the parameters the model needs and the derived config. */
import type { Target } from '../../device/index.js';
import type { FilterConfig } from '../types.js';

export interface StableParams {
  /** Hash functions = banks (the filter is partitioned: hash i sets one cell of bank i). */
  k: number;
  /** Bits per cell (Deng & Rafiei's d); Max = 2^d − 1. */
  d: number;
  /** Cells per bank (a power of two); m = k · cells. */
  cells: number;
  /** Cells per block RAM word (a power of two). */
  cellsPerWord: number;
  /** Cells decremented per insert in total (Deng & Rafiei's P), spread over the k banks. */
  P: number;
  keyBits: number;
  seed: number;
}

export interface StableDerived extends StableParams, FilterConfig {
  name: string;
  filter: 'stable';
  tagBits: number;
  target: Target;
  /** Bits per block RAM word (cellsPerWord · d). */
  wordBits: number;
  /** Words per bank (cells / cellsPerWord). */
  depth: number;
  /** Set when the planner chose the sizes. */
  planned?: { window: number; fp: number; findProbability: number };
  /**
   * A lane design's shard (src/lanes/, ./lanes.ts): no response queue and no out_ready — the
   * response leaves the cycle it is formed (one cycle earlier), and the dispatcher takes it.
   */
  direct?: boolean;
}
