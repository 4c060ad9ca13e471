/** The bitwise Bloom filter family's types: a level as written, its layout, the derived config. */
import type { Target } from '../../device/index.js';
import type { FilterConfig } from '../types.js';

/** One level V_i as a config writes it (libBf manual, "Bitwise": m_i cells, width w_i, k_i hashes). */
export interface BitwiseLevel {
  /** m_i: counters of the level, split into k_i banks of m_i/k_i (partitioned: one hash per bank). */
  cells: number;
  /** w_i: bits per counter. */
  width: number;
  /** k_i: hash functions (= banks) of the level. */
  k: number;
}

/** A level with everything the model and the hardware derive from it. */
export interface LevelLayout extends BitwiseLevel {
  /** Counters per bank, m_i/k_i (a power of two). */
  bankCells: number;
  /** log2(bankCells): bits of a bank's hash. */
  indexBits: number;
  /** Counters packed in one block RAM word (a power of two). */
  lanes: number;
  laneBits: number;
  /** Bits of a block RAM word: lanes · width. */
  wordWidth: number;
  /** Words per bank block RAM, bankCells / lanes (at least 2). */
  depth: number;
  addrBits: number;
  /** 2^width − 1: the largest counter value. */
  max: number;
  /** Σ_{j<i} w_j: the level's counter is worth 2^offset in the count. */
  offset: number;
}

/** What the model needs. */
export interface BitwiseParams {
  levels: LevelLayout[];
  keyBits: number;
  seed: number;
}

export interface BitwiseDerived extends BitwiseParams, FilterConfig {
  name: string;
  filter: 'bitwise';
  /** Block RAM word the counters are packed into (bits). */
  wordBits: number;
  tagBits: number;
  /** Distinct items the filter is sized for (n): the conformance runs and `analyze` use it. */
  items: number;
  /** Σ w_i: width of the count (the largest count is 2^countBits − 1). */
  countBits: number;
  target: Target;
  /**
   * A lane design's shard (src/lanes/, ./lanes.ts): no response queue and no out_ready — the
   * response leaves the cycle the last stage forms it (one cycle earlier), and the dispatcher takes
   * it as it comes. Never set by a written config: only the shard derivation sets it.
   */
  direct?: boolean;
}
