/**
 * Reference model of the importance-aware Bloom filter pipeline (Boraskar, §5): Imp-insert or
 * M-insert (§5.1, Algorithms 1 and 2) with Random-delete (§5.2, Algorithm 3) in the variant
 * the hardware builds — word-local deletes — written to the hardware's physical layout so that
 * the cell arrays compare with the simulator's block RAMs bit for bit. (The paper's schemes over
 * one global array, the importance-aware deletes among them, are in ./schemes.ts.)
 *
 * The banks are the word-local cell bank of src/model/wordCellBank.ts, shared with the Stable
 * Bloom filter: k banks (the paper's n = k · cells) of words of C = `cellsPerWord` cells of d
 * bits; an insert (insert, test-and-insert) of importance v first runs the delete — P_i =
 * ⌊P/k⌋ + (i < P mod k) cyclically adjacent cells of the word it writes in bank i decremented
 * from r_i (xorshift32 generator lanes, seeded with the family constant 0x1bf00000; a cell at 0
 * stays 0) — then sets its cell of each bank to v (Imp-insert) or to MAX (M-insert): the paper's
 * order, the set wins over a decrement of the same cell.
 *
 * - importance: an insert's importance must be 1..MAX (the cell value it would write). An insert
 *   with importance 0 or above MAX is refused: it changes nothing (no delete, no generator step)
 *   and answers hit 0 with the response flag bad = 1. Queries ignore the importance.
 * - the generator steps once per accepted insert; clear restores the seeds.
 * - a query answers "seen" iff all k cells are non-zero (as for the SBF; §5 keeps the query).
 */
import {
  decrementsPerBank,
  WordCellBank,
  wordCellLayout,
  xorshiftLaneSeeds,
  type WordCellLayout,
} from '../../model/wordCellBank.js';
import type { IbfParams } from './types.js';

export { log2Exact, xorshift32 } from '../../model/wordCellBank.js';

export type IbfLayout = WordCellLayout;

/** Bits of a cell holding 0..max. */
export function cellBits(max: number): number {
  return Math.max(1, Math.ceil(Math.log2(max + 1)));
}

/** P_i = ⌊P/k⌋ + (i < P mod k ? 1 : 0). */
export const deletesPerBank = decrementsPerBank;

export function ibfLayout(p: IbfParams): IbfLayout {
  return wordCellLayout(p);
}

/** Salt of bank i's H3 hash (documented contract with the RTL). */
export function ibfSalt(bank: number): number {
  return bank;
}

/** The seed of generator lane `lane`: SplitMix64 of (seed, lane), low 32 bits, never 0. */
export function ibfLaneSeeds(seed: number, lanes: number): number[] {
  return xorshiftLaneSeeds(seed, lanes, 0x1bf0_0000n);
}

/** True when an insert of this importance is refused (0 or above MAX). */
export function badImportance(max: number, imp: number | bigint): boolean {
  const v = BigInt(imp);
  return v < 1n || v > BigInt(max);
}

export class IbfModel extends WordCellBank {
  declare readonly p: IbfParams;
  /** Inserts refused for their importance. */
  refused = 0;

  constructor(p: IbfParams) {
    const L = ibfLayout(p);
    super(p, L, ibfLaneSeeds(p.seed, L.lanes), ibfSalt);
  }

  /** Accepted inserts that deleted (P > 0): the aging steps. */
  get deleteRounds(): number {
    return this.agingRounds;
  }

  /** The value an insert of importance `imp` writes (null: refused). */
  private valueFor(imp: number): number | null {
    if (badImportance(this.p.max, imp)) return null;
    return this.p.insert === 'max' ? this.p.max : imp;
  }

  /** Inserts with importance `imp`; false when refused (importance 0 or above MAX). */
  insert(key: bigint, imp: number): boolean {
    const v = this.valueFor(imp);
    if (v === null) {
      this.refused++;
      return false;
    }
    this.insertValue(key, v);
    return true;
  }

  /** The answer as of before the insert, then the insert; null when refused. */
  testAndInsert(key: bigint, imp: number): boolean | null {
    const v = this.valueFor(imp);
    if (v === null) {
      this.refused++;
      return null;
    }
    return this.testAndInsertValue(key, v);
  }
}
