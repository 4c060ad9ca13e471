/**
 * Reference model of the Stable Bloom filter (Deng & Rafiei, "Approximately detecting duplicates
 * for streaming data using stable Bloom filters", SIGMOD 2006) in the variant the hardware
 * builds — word-local decrements — written to the hardware's physical layout so that the cell
 * arrays compare with the simulator's block RAMs bit for bit.
 *
 * The paper's SBF: m cells of d bits (Max = 2^d − 1). An insert first decrements P cells chosen
 * at random (a cell at 0 stays 0), then sets its k hashed cells to Max. A query answers "seen"
 * iff all k cells are non-zero.
 *
 * This variant (the one hardware with one write port per block RAM can do at one insert per
 * cycle) is the word-local cell bank of src/model/wordCellBank.ts, shared with the importance-
 * aware filter: k banks (m = k · cells) of words of C = `cellsPerWord` cells, an insert
 * decrementing P_i = ⌊P/k⌋ + (i < P mod k ? 1 : 0) cyclically adjacent cells of the word it
 * writes in bank i from r_i (the xorshift32 generator lanes), then setting its cell to Max (so
 * a decrement of its own cell is overwritten, as in the paper where the k cells are set after
 * the P decrements). The SBF's lane seeds take the family constant 0x57ab1e00.
 */
import {
  adjacentMask,
  WordCellBank,
  wordCellLayout,
  xorshiftLaneSeeds,
  type WordCellLayout,
} from '../../model/wordCellBank.js';
import type { StableParams } from './types.js';

export { decrementsPerBank, laneOffset, log2Exact, xorshift32 } from '../../model/wordCellBank.js';

/** The word-local layout (src/model/wordCellBank.ts) and the SBF's Max. */
export interface StableLayout extends WordCellLayout {
  /** 2^d − 1. */
  max: number;
}

export function stableLayout(p: StableParams): StableLayout {
  return { ...wordCellLayout(p), max: 2 ** p.d - 1 };
}

/** Salt of bank i's H3 hash (documented contract with the RTL). */
export function stableSalt(bank: number): number {
  return bank;
}

/** The seed of generator lane `lane`: SplitMix64 of (seed, lane), low 32 bits, never 0. */
export function laneSeeds(seed: number, lanes: number): number[] {
  return xorshiftLaneSeeds(seed, lanes, 0x57ab1e00n);
}

/** The word mask (bit j: cell j of the word) of the P_i cells decremented from start r. */
export const decrementMask = adjacentMask;

export class StableModel extends WordCellBank<StableLayout> {
  declare readonly p: StableParams;

  constructor(p: StableParams) {
    const L = stableLayout(p);
    super(p, L, laneSeeds(p.seed, L.lanes), stableSalt);
  }

  /** Inserts that decremented (P > 0): the aging steps. */
  get decrementRounds(): number {
    return this.agingRounds;
  }

  insert(key: bigint): void {
    this.insertValue(key, this.layout.max);
  }

  /** The answer as of before the insert, then the insert. */
  testAndInsert(key: bigint): boolean {
    return this.testAndInsertValue(key, this.layout.max);
  }
}
