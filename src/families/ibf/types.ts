/** The importance-aware Bloom filter family's types: the parameters the model needs and the derived config. */
import type { Target } from '../../device/index.js';
import type { FilterConfig } from '../types.js';

/** Boraskar §5.1: M-insert sets the k cells to MAX, Imp-insert to the item's importance. */
export type IbfInsert = 'imp' | 'max';

export interface IbfParams {
  /** Hash functions = banks (hash i sets one cell of bank i). */
  k: number;
  /** The largest cell value (the paper's M / MAX, §5.1 and Table 2). */
  max: number;
  /** Bits per cell: ⌈log2(max + 1)⌉. */
  d: number;
  /** Cells per bank (a power of two); the paper's n = k · cells. */
  cells: number;
  /** Cells per block RAM word (a power of two). */
  cellsPerWord: number;
  /** Cells decremented per insert in total (the paper's p, §5.2 Algorithm 3), spread over the k banks. */
  P: number;
  insert: IbfInsert;
  keyBits: number;
  seed: number;
}

export interface IbfDerived extends IbfParams, FilterConfig {
  name: string;
  filter: 'ibf';
  tagBits: number;
  target: Target;
  /** Bits per block RAM word (cellsPerWord · d). */
  wordBits: number;
  /** Words per bank (cells / cellsPerWord). */
  depth: number;
  /**
   * A lane design's shard (src/lanes/, ./lanes.ts): no response queue and no out_ready — the
   * response leaves the cycle it is formed (one cycle earlier), and the dispatcher takes it.
   */
  direct?: boolean;
}
