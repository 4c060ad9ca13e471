/** The TBF/BTBF family's types: the parameters the model needs and the derived config. */
import type { Target } from '../../device/index.js';
import type { FilterConfig } from '../types.js';

/** D(j), the expected number of distinct items among j insertions (§2.5), as a config gives it. */
export type DistinctSpec =
  | { kind: 'uniform'; universe: number }
  | { kind: 'powerlaw'; universe: number }
  | { kind: 'sampled'; points: [number, number][] };

export interface TbfParams {
  k: number;
  /** Timers per bank (partitioned) — m = k · timersPerBank. */
  timersPerBank: number;
  timerBits: number;
  window: number;
  /** Insertions per T+ increment (B); 1 for the TBF. */
  blockSize: number;
  padding: number;
  keyBits: number;
  seed: number;
  layout: 'partitioned' | 'shared';
  /**
   * With the partitioned layout: timers per block RAM word. When given, the scan follows the
   * hardware's schedule — after each insertion one word (this many timers) of every bank, at a
   * word pointer cycling 0..timersPerBank/timersPerWord−1 — instead of ⌈m/(B(P+1))⌉ consecutive
   * timers of the whole array.
   */
  timersPerWord?: number;
}

export interface TbfDecisionDerived {
  distinct: DistinctSpec;
  classes: { px: number; name: string }[];
  posteriorBits: number;
}

export interface TbfDerived extends TbfParams, FilterConfig {
  name: string;
  filter: 'tbf' | 'btbf';
  timersPerWord: number;
  tagBits: number;
  target: Target;
  layout: 'partitioned';
  /** Derived. */
  wordsPerBank: number;
  /** ⌈w/B⌉ + 1: the scanner marks timers of this age and older. */
  markAge: number;
  tOmega: number;
  tEps: number;
  decision: TbfDecisionDerived | null;
  /** Set when the planner chose the sizes from `window` and `fp`. */
  planned?: { window: number; fp: number };
  /**
   * A shard of an N-lane filter (src/families/tbf/lanes.ts): T+ and b come with each request from
   * the dispatcher (the ports of LaneTime in src/families/types.ts) and the expiry scanner steps
   * when a request says so, instead of on the shard's own inserts.
   */
  laneTime?: { lanes: number; shards: number; merge?: boolean };
}
