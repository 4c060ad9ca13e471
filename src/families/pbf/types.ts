/** The persistent Bloom filters' types (SBF, PBF-2; PBF-1 is a model only): derived config. */
import type { Target } from '../../device/index.js';
import type { FilterConfig } from '../types.js';

export type PbfVariant = 'sbf' | 'pbf2';

/** One level (one Bloom filter) of a persistent filter: k slices of `sliceBits` bits each. */
export interface LevelSpec {
  /** Height h: the level's time granularity is 2^h (0: single time instants; D = log2 T: the root). */
  height: number;
  /** Hash functions (= slices). 0 for a level without bits (answers "maybe" to every probe). */
  k: number;
  /** Bits per slice (any positive integer in the model; a power of two in hardware). */
  sliceBits: number;
}

export interface PbfDerived extends FilterConfig {
  name: string;
  filter: PbfVariant;
  /** The time horizon T = 2^D: request times are 0 .. T − 1 (the paper's 1 .. T, minus one). */
  horizon: number;
  /** D = log2 T: the width of the time fields, the height of the root level. */
  timeBits: number;
  /** Hash functions (slices) per level. */
  k: number;
  /** The levels in hardware order: SBF one level of height 0; PBF-2 heights 0 .. D. */
  levels: LevelSpec[];
  /** Distinct (key, time) pairs the filter is sized for (analytics). */
  items: number;
  /** The query length |q| the analytics report (default min(128, T)). */
  queryLength: number;
  wordBits: number;
  tagBits: number;
  target: Target;
  planned?: { items: number; fp: number; queryLength: number };
}
