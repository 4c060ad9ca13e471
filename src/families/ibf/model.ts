/**
 * Reference model of the importance-aware Bloom filter pipeline (Boraskar, §5): Imp-insert or
 * M-insert (§5.1, Algorithms 1 and 2) with Random-delete (§5.2, Algorithm 3) in the variant
 * the hardware builds — word-local deletes — written to the hardware's physical layout so that
 * the cell arrays compare with the simulator's block RAMs bit for bit. (The paper's schemes over
 * one global array, the importance-aware deletes among them, are in ./schemes.ts.)
 *
 * - partitioned: hash i (H3 keyed by the config seed, salt i) picks cell h_i(x) of bank i, a
 *   bank of `cells` cells of d bits; the paper's n = k · cells.
 * - a bank is a block RAM of words of C = `cellsPerWord` cells; cell c is bits
 *   [(c mod C)·d, (c mod C)·d + d) of word ⌊c / C⌋.
 * - an insert (insert, test-and-insert) of importance v first runs the delete: it decrements
 *   P_i cells of the word it writes in bank i (a cell at 0 stays 0), P_i = ⌊P/k⌋ + (i < P mod k),
 *   the cyclically adjacent cells r_i … r_i + P_i − 1 (mod C), r_i from the generator; then it
 *   sets its cell of each bank to v (Imp-insert) or to MAX (M-insert) — the paper's order: the
 *   set wins over a decrement of the same cell.
 * - importance: an insert's importance must be 1..MAX (the cell value it would write). An insert
 *   with importance 0 or above MAX is refused: it changes nothing (no delete, no generator step)
 *   and answers hit 0 with the response flag bad = 1. Queries ignore the importance.
 * - the generator: xorshift32 lanes seeded from the config seed (`ibfLaneSeeds`); bank i reads its
 *   log2(C) bits r_i at bit (i mod perLane)·log2(C) of lane ⌊i / perLane⌋, perLane = ⌊32 / log2 C⌋.
 *   Every accepted insert uses the current states, then steps every lane once; clear restores
 *   the seeds.
 * - a query answers "seen" iff all k cells are non-zero (as for the SBF; §5 keeps the query).
 */
import { h3Matrix, h3Tables, splitMix64 } from '../../ir/h3.js';
import type { IbfParams } from './types.js';

export interface IbfLayout {
  offsetBits: number;
  addrBits: number;
  hashBits: number;
  perBank: number[];
  perLane: number;
  lanes: number;
  wordBits: number;
  depth: number;
}

export function log2Exact(x: number, what: string): number {
  const e = Math.log2(x);
  if (!Number.isInteger(e)) throw new RangeError(`${what} must be a power of two, got ${x}`);
  return e;
}

/** Bits of a cell holding 0..max. */
export function cellBits(max: number): number {
  return Math.max(1, Math.ceil(Math.log2(max + 1)));
}

/** P_i = ⌊P/k⌋ + (i < P mod k ? 1 : 0). */
export function deletesPerBank(P: number, k: number): number[] {
  return Array.from({ length: k }, (_, i) => Math.floor(P / k) + (i < P % k ? 1 : 0));
}

export function ibfLayout(p: IbfParams): IbfLayout {
  const offsetBits = log2Exact(p.cellsPerWord, 'cellsPerWord');
  const hashBits = log2Exact(p.cells, 'cells');
  const perLane = offsetBits === 0 ? p.k : Math.floor(32 / offsetBits);
  return {
    offsetBits,
    addrBits: hashBits - offsetBits,
    hashBits,
    perBank: deletesPerBank(p.P, p.k),
    perLane,
    lanes: offsetBits === 0 ? 0 : Math.ceil(p.k / perLane),
    wordBits: p.cellsPerWord * p.d,
    depth: p.cells / p.cellsPerWord,
  };
}

/** Salt of bank i's H3 hash (documented contract with the RTL). */
export function ibfSalt(bank: number): number {
  return bank;
}

/** One step of xorshift32 (the triple 13, 17, 5). */
export function xorshift32(x: number): number {
  x ^= x << 13;
  x ^= x >>> 17;
  x ^= x << 5;
  return x >>> 0;
}

/** The seed of generator lane `lane`: SplitMix64 of (seed, lane), low 32 bits, never 0. */
export function ibfLaneSeeds(seed: number, lanes: number): number[] {
  return Array.from({ length: lanes }, (_, lane) => {
    const v = Number(splitMix64((BigInt(seed) << 32n) ^ 0x1bf0_0000n ^ BigInt(lane)).next() & 0xffffffffn);
    return v === 0 ? 1 : v;
  });
}

/** True when an insert of this importance is refused (0 or above MAX). */
export function badImportance(max: number, imp: number | bigint): boolean {
  const v = BigInt(imp);
  return v < 1n || v > BigInt(max);
}

export class IbfModel {
  readonly layout: IbfLayout;
  readonly cells: Uint16Array[];
  readonly lanes: Uint32Array;
  inserted = 0;
  /** Accepted inserts that deleted (P > 0): the aging steps. */
  deleteRounds = 0;
  /** Inserts refused for their importance. */
  refused = 0;
  private readonly seeds: number[];
  private readonly tables: Uint32Array[];
  private readonly keyBytes: number;
  private readonly idx: Int32Array;

  constructor(readonly p: IbfParams) {
    const L = (this.layout = ibfLayout(p));
    this.cells = Array.from({ length: p.k }, () => new Uint16Array(p.cells));
    this.seeds = ibfLaneSeeds(p.seed, L.lanes);
    this.lanes = Uint32Array.from(this.seeds);
    this.tables = Array.from({ length: p.k }, (_, i) =>
      h3Tables(h3Matrix(p.seed, ibfSalt(i), p.keyBits, L.hashBits), p.keyBits),
    );
    this.keyBytes = Math.ceil(p.keyBits / 8);
    this.idx = new Int32Array(p.k);
  }

  index(key: bigint, bank: number): number {
    const t = this.tables[bank]!;
    let h = 0;
    let v = key;
    for (let i = 0; i < this.keyBytes; i++) {
      h ^= t[i * 256 + Number(v & 0xffn)]!;
      v >>= 8n;
    }
    return h >>> 0;
  }

  private load(key: bigint): Int32Array {
    for (let i = 0; i < this.p.k; i++) this.idx[i] = this.index(key, i);
    return this.idx;
  }

  private test(idx: Int32Array): boolean {
    for (let i = 0; i < this.p.k; i++) if (this.cells[i]![idx[i]!] === 0) return false;
    return true;
  }

  private apply(idx: Int32Array, value: number): void {
    const L = this.layout;
    const C = this.p.cellsPerWord;
    for (let i = 0; i < this.p.k; i++) {
      const cells = this.cells[i]!;
      const c = idx[i]!;
      const base = c - (c & (C - 1));
      const Pi = L.perBank[i]!;
      const r = this.offset(i);
      for (let t = 0; t < Pi; t++) {
        const j = base + ((r + t) & (C - 1));
        if (cells[j]! > 0) cells[j]!--;
      }
      cells[c] = value;
    }
    for (let lane = 0; lane < L.lanes; lane++) this.lanes[lane] = xorshift32(this.lanes[lane]!);
    this.inserted++;
    if (this.p.P > 0) this.deleteRounds++;
  }

  /** r_i: bank i's offset bits from the lane states. */
  private offset(bank: number): number {
    const L = this.layout;
    if (L.offsetBits === 0) return 0;
    const lane = Math.floor(bank / L.perLane);
    const shift = (bank % L.perLane) * L.offsetBits;
    return (this.lanes[lane]! >>> shift) & ((1 << L.offsetBits) - 1);
  }

  /** The value an insert of importance `imp` writes (null: refused). */
  private valueOf(imp: number): number | null {
    if (badImportance(this.p.max, imp)) return null;
    return this.p.insert === 'max' ? this.p.max : imp;
  }

  query(key: bigint): boolean {
    return this.test(this.load(key));
  }

  /** Inserts with importance `imp`; false when refused (importance 0 or above MAX). */
  insert(key: bigint, imp: number): boolean {
    const v = this.valueOf(imp);
    if (v === null) {
      this.refused++;
      return false;
    }
    this.apply(this.load(key), v);
    return true;
  }

  /** The answer as of before the insert, then the insert; null when refused. */
  testAndInsert(key: bigint, imp: number): boolean | null {
    const v = this.valueOf(imp);
    if (v === null) {
      this.refused++;
      return null;
    }
    const idx = this.load(key);
    const hit = this.test(idx);
    this.apply(idx, v);
    return hit;
  }

  clear(): void {
    for (const c of this.cells) c.fill(0);
    this.lanes.set(this.seeds);
    this.inserted = 0;
    this.deleteRounds = 0;
  }

  word(bank: number, addr: number): bigint {
    const C = this.p.cellsPerWord;
    const cells = this.cells[bank]!;
    let w = 0n;
    for (let j = C - 1; j >= 0; j--) w = (w << BigInt(this.p.d)) | BigInt(cells[addr * C + j]!);
    return w;
  }

  zeroFraction(): number {
    let z = 0;
    for (const c of this.cells) for (let j = 0; j < c.length; j++) if (c[j] === 0) z++;
    return z / (this.p.k * this.p.cells);
  }
}
