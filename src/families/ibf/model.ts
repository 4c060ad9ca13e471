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

export class IbfModel {
  readonly layout: IbfLayout;
  /** The banks: cells[bank][c] and the generator lanes. */
  readonly bank: WordCellBank;
  inserted = 0;
  /** Accepted inserts that deleted (P > 0): the aging steps. */
  deleteRounds = 0;
  /** Inserts refused for their importance. */
  refused = 0;

  constructor(readonly p: IbfParams) {
    this.layout = ibfLayout(p);
    this.bank = new WordCellBank(p, ibfLaneSeeds(p.seed, this.layout.lanes), ibfSalt);
  }

  get cells(): Uint16Array[] {
    return this.bank.cells;
  }

  get lanes(): Uint32Array {
    return this.bank.lanes;
  }

  index(key: bigint, bank: number): number {
    return this.bank.index(key, bank);
  }

  private apply(idx: Int32Array, value: number): void {
    this.bank.apply(idx, value);
    this.inserted++;
    if (this.p.P > 0) this.deleteRounds++;
  }

  /** The value an insert of importance `imp` writes (null: refused). */
  private valueOf(imp: number): number | null {
    if (badImportance(this.p.max, imp)) return null;
    return this.p.insert === 'max' ? this.p.max : imp;
  }

  query(key: bigint): boolean {
    return this.bank.test(this.bank.load(key));
  }

  /** Inserts with importance `imp`; false when refused (importance 0 or above MAX). */
  insert(key: bigint, imp: number): boolean {
    const v = this.valueOf(imp);
    if (v === null) {
      this.refused++;
      return false;
    }
    this.apply(this.bank.load(key), v);
    return true;
  }

  /** The answer as of before the insert, then the insert; null when refused. */
  testAndInsert(key: bigint, imp: number): boolean | null {
    const v = this.valueOf(imp);
    if (v === null) {
      this.refused++;
      return null;
    }
    const idx = this.bank.load(key);
    const hit = this.bank.test(idx);
    this.apply(idx, v);
    return hit;
  }

  clear(): void {
    this.bank.clear();
    this.inserted = 0;
    this.deleteRounds = 0;
  }

  word(bank: number, addr: number): bigint {
    return this.bank.word(bank, addr);
  }

  zeroFraction(): number {
    return this.bank.zeroFraction();
  }
}
