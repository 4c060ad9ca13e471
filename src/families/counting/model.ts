/**
 * Reference model of the counting Bloom filter and the spectral Bloom filter's three algorithms,
 * written from the libBf manual (the seed: "Multisets", "Counting", "Spectral") and, for the
 * recurring minimum's insert and remove rules the manual leaves out, from Cohen & Matias,
 * "Spectral Bloom Filters", SIGMOD 2003, §3.3 (quoted in ./README.md). It follows the
 * hardware's layout so counters can be compared with the block RAMs bit for bit.
 *
 * Layout (partitioned): k banks of `cellsPerBank` counters of w bits; the key's counter in bank i
 * is H3_i(key) (log2(cellsPerBank) bits, keyed by the config's seed, salt i). A bank is stored
 * as words of `lanes` counters: counter j of a bank is lane j mod lanes of word j / lanes (lane 0
 * in the low bits). RM's secondary filter has k banks of `secondaryCellsPerBank` counters, salts
 * 32 + i.
 *
 * Counters saturate: an increment of a counter at 2^w − 1 leaves it there and flags overflow (the
 * manual: "simply not continuing to count rather than overflowing and restarting at 0"); a
 * decrement of a counter at 0 leaves it there and flags underflow. A decrement of a saturated
 * counter decrements it (the counter forgot how far past 2^w − 1 it went; the manual's undercount).
 *
 * Ops (the answer of test-and-insert is as of before its own insert):
 * - query: count = the key's estimate, hit = count > 0.
 *   MS, MI: the minimum of the key's k counters (minimum selection).
 *   RM: if the minimum of the primary counters is recurring (held by two counters or more), that
 *   minimum; else the secondary filter's minimum if it is not 0, else the primary's minimum.
 * - insert. MS: every counter +1. MI: the counters holding the minimum +1 (minimum increase).
 *   RM: every primary counter +1; then, if the primary's new minimum is held by one counter only:
 *   when every secondary counter of the key is > 0 (the key is "found" there) each +1, otherwise
 *   each + the primary's new minimum (the key is added "with an initial value that equals its
 *   minimal value from the primary SBF"), saturating.
 * - remove (MS, RM; MI refuses it): MS every counter −1. RM every primary counter −1; then, if the
 *   primary's new minimum is held by one counter only and no secondary counter of the key is 0,
 *   each secondary counter −1.
 * - clear: every counter 0.
 * overflow: some counter the op incremented (or, RM's secondary, added to) saturated; underflow:
 * some counter the op decremented was at 0. Queries and clears flag neither.
 */
import { h3FromWords, h3Matrix, h3Tables } from '../../ir/h3.js';
import type { CountingParams } from './types.js';

/** Salt of the H3 unit of primary bank i and of secondary bank i (documented contract with the RTL). */
export function primarySalt(bank: number): number {
  return bank;
}
export function secondarySalt(bank: number): number {
  return 32 + bank;
}

/** The answer of an op (what the pipeline's response fields carry). */
export interface CountResult {
  hit: boolean;
  count: number;
  overflow: boolean;
  underflow: boolean;
}

export type CountOp = 'query' | 'insert' | 'testAndInsert' | 'remove' | 'clear';

/** Minimum of `v` over the key's cells, and how many cells hold it. */
function minimum(banks: Uint32Array[], idx: Int32Array): { min: number; holders: number } {
  let min = Infinity;
  let holders = 0;
  for (let i = 0; i < banks.length; i++) {
    const v = banks[i]![idx[i]!]!;
    if (v < min) {
      min = v;
      holders = 1;
    } else if (v === min) holders++;
  }
  return { min, holders };
}

export class CountingModel {
  /** primary[i][j]: counter j of bank i. */
  readonly primary: Uint32Array[];
  /** RM's secondary filter (empty for MS and MI). */
  readonly secondary: Uint32Array[];
  readonly max: number;
  private readonly t1: Uint32Array[];
  private readonly t2: Uint32Array[];
  private readonly i1: Int32Array;
  private readonly i2: Int32Array;
  private readonly words: Uint32Array;
  private readonly keyBytes: number;

  constructor(readonly p: CountingParams) {
    this.max = 2 ** p.counterBits - 1;
    const table = (salt: number, cells: number): Uint32Array =>
      h3Tables(h3Matrix(p.seed, salt, p.keyBits, Math.log2(cells)), p.keyBits);
    this.primary = Array.from({ length: p.k }, () => new Uint32Array(p.cellsPerBank));
    this.t1 = Array.from({ length: p.k }, (_, i) => table(primarySalt(i), p.cellsPerBank));
    const rm = p.algorithm === 'rm';
    this.secondary = rm ? Array.from({ length: p.k }, () => new Uint32Array(p.secondaryCellsPerBank)) : [];
    this.t2 = rm ? Array.from({ length: p.k }, (_, i) => table(secondarySalt(i), p.secondaryCellsPerBank)) : [];
    this.i1 = new Int32Array(p.k);
    this.i2 = new Int32Array(p.k);
    this.words = new Uint32Array(Math.ceil(p.keyBits / 32));
    this.keyBytes = Math.ceil(p.keyBits / 8);
  }

  /** The key's cell in every bank (primary, and secondary for RM). */
  private load(key: bigint): void {
    let v = key;
    for (let j = 0; j < this.words.length; j++) {
      this.words[j] = Number(v & 0xffffffffn);
      v >>= 32n;
    }
    for (let i = 0; i < this.p.k; i++) this.i1[i] = h3FromWords(this.t1[i]!, this.words, this.keyBytes);
    for (let i = 0; i < this.t2.length; i++) this.i2[i] = h3FromWords(this.t2[i]!, this.words, this.keyBytes);
  }

  /** The key's cells in the primary banks (for tests and experiments). */
  cells(key: bigint): number[] {
    this.load(key);
    return Array.from(this.i1);
  }

  private estimate(): number {
    const a = minimum(this.primary, this.i1);
    if (this.p.algorithm !== 'rm' || a.holders > 1) return a.min;
    const b = minimum(this.secondary, this.i2);
    return b.min > 0 ? b.min : a.min;
  }

  /** +1 on every primary counter (MS, RM) or on the minimal ones (MI); returns overflow. */
  private increment(): boolean {
    const banks = this.primary;
    let ovf = false;
    const only = this.p.algorithm === 'mi' ? minimum(banks, this.i1).min : -1;
    for (let i = 0; i < banks.length; i++) {
      const j = this.i1[i]!;
      const v = banks[i]![j]!;
      if (only >= 0 && v !== only) continue;
      if (v === this.max) ovf = true;
      else banks[i]![j] = v + 1;
    }
    if (this.p.algorithm !== 'rm') return ovf;
    const a = minimum(banks, this.i1);
    if (a.holders > 1) return ovf;
    const found = minimum(this.secondary, this.i2).min > 0;
    const add = found ? 1 : a.min;
    for (let i = 0; i < this.secondary.length; i++) {
      const j = this.i2[i]!;
      const v = this.secondary[i]![j]!;
      if (v + add > this.max) {
        ovf = true;
        this.secondary[i]![j] = this.max;
      } else this.secondary[i]![j] = v + add;
    }
    return ovf;
  }

  /** −1 on every primary counter (and, RM, on the secondary ones); returns underflow. */
  private decrement(): boolean {
    const banks = this.primary;
    let udf = false;
    for (let i = 0; i < banks.length; i++) {
      const j = this.i1[i]!;
      const v = banks[i]![j]!;
      if (v === 0) udf = true;
      else banks[i]![j] = v - 1;
    }
    if (this.p.algorithm !== 'rm' || minimum(banks, this.i1).holders > 1) return udf;
    if (minimum(this.secondary, this.i2).min === 0) return udf;
    for (let i = 0; i < this.secondary.length; i++) this.secondary[i]![this.i2[i]!]! -= 1;
    return udf;
  }

  apply(op: CountOp, key: bigint): CountResult {
    const r: CountResult = { hit: false, count: 0, overflow: false, underflow: false };
    if (op === 'clear') {
      this.clear();
      return r;
    }
    this.load(key);
    if (op === 'query' || op === 'testAndInsert') {
      r.count = this.estimate();
      r.hit = r.count > 0;
    }
    if (op === 'insert' || op === 'testAndInsert') r.overflow = this.increment();
    if (op === 'remove') {
      if (!this.p.remove) throw new Error(`${this.p.algorithm}: this config has no remove op`);
      r.underflow = this.decrement();
    }
    return r;
  }

  query(key: bigint): number {
    return this.apply('query', key).count;
  }
  insert(key: bigint): CountResult {
    return this.apply('insert', key);
  }
  remove(key: bigint): CountResult {
    return this.apply('remove', key);
  }

  clear(): void {
    for (const b of this.primary) b.fill(0);
    for (const b of this.secondary) b.fill(0);
  }

  /** Word `addr` of a bank as the block RAM holds it (lane 0 in the low bits). */
  word(secondary: boolean, bank: number, addr: number): bigint {
    const cells = (secondary ? this.secondary : this.primary)[bank]!;
    const L = this.p.lanes;
    let w = 0n;
    for (let j = L - 1; j >= 0; j--) w = (w << BigInt(this.p.counterBits)) | BigInt(cells[addr * L + j]!);
    return w;
  }
}
