/** The classic set filters' types (basic, partitioned, blocked): model parameters and the derived config. */
import type { Target } from '../../device/index.js';
import type { FilterConfig } from '../types.js';

export type BloomVariant = 'basic' | 'partitioned' | 'blocked';

/** What the reference model, the analytics and the compiled software filter need. */
export interface BloomParams {
  filter: BloomVariant;
  /**
   * Bits set (and tested) per key: the hash functions of a basic or partitioned filter, the
   * bits set per block (b) of a blocked one.
   */
  k: number;
  /** Total bits m (a partitioned filter: k slices of m/k bits). */
  bits: number;
  /** Block size B in bits (blocked), 1 otherwise. */
  blockBits: number;
  keyBits: number;
  seed: number;
}

export interface BloomDerived extends BloomParams, FilterConfig {
  name: string;
  filter: BloomVariant;
  /** Items the filter is sized for (n): given as `items`, or the n at fill 1/2 (see config.ts). */
  items: number;
  /** Block RAM word of every column. */
  wordBits: number;
  tagBits: number;
  /** Memories (columns): 1 (basic), k (partitioned: one per slice), b (blocked: one per part of a block). */
  columns: number;
  /** Bits per column (m / columns). */
  columnBits: number;
  /** Words per column block RAM (columnBits / wordBits). */
  columnDepth: number;
  /** Cycles per op (initiation interval): k for the basic filter with k ≥ 2, else 1. */
  initiationInterval: number;
  target: Target;
  /** Set when the planner chose the sizes from `items` and `fp`. */
  planned?: { items: number; fp: number };
  /**
   * A lane design's shard (src/lanes/, ./lanes.ts): no response queue and no out_ready — the
   * response leaves the cycle it is formed (one cycle earlier), and the dispatcher takes it.
   */
  direct?: boolean;
}
