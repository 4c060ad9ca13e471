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
 * cycle):
 * - partitioned: hash i (H3 keyed by the config seed, salt i) picks cell h_i(x) of bank i, a
 *   bank of `cells` cells; m = k · cells.
 * - a bank is a block RAM of words of C = `cellsPerWord` cells; cell c is bits
 *   [(c mod C)·d, (c mod C)·d + d) of word ⌊c / C⌋.
 * - word-local decrements: the insert decrements P_i cells of the word it writes in bank i,
 *   P_i = ⌊P/k⌋ + (i < P mod k ? 1 : 0) (so Σ P_i = P), namely the P_i cyclically adjacent
 *   cells r_i, r_i + 1, …, r_i + P_i − 1 (mod C) of that word, r_i drawn from the generator;
 *   then it sets its cell to Max (so a decrement of its own cell is overwritten, as in the
 *   paper where the k cells are set after the P decrements).
 * - the generator: `lanes` xorshift32 generators (Marsaglia, "Xorshift RNGs", J. Stat. Softw.
 *   8(14), 2003: x ^= x << 13; x ^= x >> 17; x ^= x << 5), each seeded from the config seed
 *   (`laneSeeds`); bank i reads its log2(C) bits r_i at bit (i mod perLane)·log2(C) of lane
 *   ⌊i / perLane⌋, perLane = ⌊32 / log2 C⌋. Every insert (insert, test-and-insert) uses the
 *   current states and then steps every lane once; clear restores the seeds. Queries do not
 *   step it.
 */
import { h3Matrix, h3Tables, splitMix64 } from '../../ir/h3.js';
import type { StableParams } from './types.js';

/** Derived layout numbers shared by the model, the compiled filter and the RTL generator. */
export interface StableLayout {
  /** log2(cellsPerWord): bits of a cell's offset in its word, and of each bank's r_i. */
  offsetBits: number;
  /** log2(words per bank). */
  addrBits: number;
  /** log2(cells): bits of one bank's hash. */
  hashBits: number;
  /** Decrements in bank i, P_i. */
  perBank: number[];
  /** Banks served by one 32-bit generator lane. */
  perLane: number;
  /** Generator lanes (0 when a word holds one cell: no random bits needed). */
  lanes: number;
  /** 2^d − 1. */
  max: number;
  wordBits: number;
  depth: number;
}

export function log2Exact(x: number, what: string): number {
  const e = Math.log2(x);
  if (!Number.isInteger(e)) throw new RangeError(`${what} must be a power of two, got ${x}`);
  return e;
}

/** P_i = ⌊P/k⌋ + (i < P mod k ? 1 : 0). */
export function decrementsPerBank(P: number, k: number): number[] {
  return Array.from({ length: k }, (_, i) => Math.floor(P / k) + (i < P % k ? 1 : 0));
}

export function stableLayout(p: StableParams): StableLayout {
  const offsetBits = log2Exact(p.cellsPerWord, 'cellsPerWord');
  const hashBits = log2Exact(p.cells, 'cells');
  const perLane = offsetBits === 0 ? p.k : Math.floor(32 / offsetBits);
  return {
    offsetBits,
    addrBits: hashBits - offsetBits,
    hashBits,
    perBank: decrementsPerBank(p.P, p.k),
    perLane,
    lanes: offsetBits === 0 ? 0 : Math.ceil(p.k / perLane),
    max: 2 ** p.d - 1,
    wordBits: p.cellsPerWord * p.d,
    depth: p.cells / p.cellsPerWord,
  };
}

/** Salt of bank i's H3 hash (documented contract with the RTL). */
export function stableSalt(bank: number): number {
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
export function laneSeeds(seed: number, lanes: number): number[] {
  return Array.from({ length: lanes }, (_, lane) => {
    const v = Number(splitMix64((BigInt(seed) << 32n) ^ 0x57ab1e00n ^ BigInt(lane)).next() & 0xffffffffn);
    return v === 0 ? 1 : v;
  });
}

/** r_i: bank i's offset bits from the lane states. */
export function laneOffset(L: StableLayout, states: ArrayLike<number>, bank: number): number {
  if (L.offsetBits === 0) return 0;
  const lane = Math.floor(bank / L.perLane);
  const shift = (bank % L.perLane) * L.offsetBits;
  return (states[lane]! >>> shift) & ((1 << L.offsetBits) - 1);
}

/** The word mask (bit j: cell j of the word) of the P_i cells decremented from start r. */
export function decrementMask(r: number, Pi: number, C: number): number {
  let mask = 0;
  for (let t = 0; t < Pi; t++) mask |= 1 << ((r + t) % C);
  return mask >>> 0;
}

export class StableModel {
  readonly layout: StableLayout;
  /** cells[bank][c]: the cell's value 0..Max. */
  readonly cells: Uint16Array[];
  /** The generator lanes' current states. */
  readonly lanes: Uint32Array;
  /** Inserts since creation or clear. */
  inserted = 0;
  /** Inserts that decremented (P > 0): the aging steps. */
  decrementRounds = 0;
  private readonly seeds: number[];
  private readonly tables: Uint32Array[];
  private readonly keyBytes: number;
  private readonly idx: Int32Array;

  constructor(readonly p: StableParams) {
    const L = (this.layout = stableLayout(p));
    this.cells = Array.from({ length: p.k }, () => new Uint16Array(p.cells));
    this.seeds = laneSeeds(p.seed, L.lanes);
    this.lanes = Uint32Array.from(this.seeds);
    this.tables = Array.from({ length: p.k }, (_, i) =>
      h3Tables(h3Matrix(p.seed, stableSalt(i), p.keyBits, L.hashBits), p.keyBits),
    );
    this.keyBytes = Math.ceil(p.keyBits / 8);
    this.idx = new Int32Array(p.k);
  }

  /** Bank i's cell index of `key` (its H3 hash). */
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

  private apply(idx: Int32Array): void {
    const L = this.layout;
    const C = this.p.cellsPerWord;
    for (let i = 0; i < this.p.k; i++) {
      const cells = this.cells[i]!;
      const c = idx[i]!;
      const base = c - (c & (C - 1));
      const Pi = L.perBank[i]!;
      const r = laneOffset(L, this.lanes, i);
      for (let t = 0; t < Pi; t++) {
        const j = base + ((r + t) & (C - 1));
        if (cells[j]! > 0) cells[j]!--;
      }
      cells[c] = L.max;
    }
    for (let lane = 0; lane < L.lanes; lane++) this.lanes[lane] = xorshift32(this.lanes[lane]!);
    this.inserted++;
    if (this.p.P > 0) this.decrementRounds++;
  }

  query(key: bigint): boolean {
    return this.test(this.load(key));
  }

  insert(key: bigint): void {
    this.apply(this.load(key));
  }

  /** The answer as of before the insert, then the insert. */
  testAndInsert(key: bigint): boolean {
    const idx = this.load(key);
    const hit = this.test(idx);
    this.apply(idx);
    return hit;
  }

  clear(): void {
    for (const c of this.cells) c.fill(0);
    this.lanes.set(this.seeds);
    this.inserted = 0;
    this.decrementRounds = 0;
  }

  /** Word `addr` of bank `bank` as the block RAM holds it. */
  word(bank: number, addr: number): bigint {
    const C = this.p.cellsPerWord;
    const cells = this.cells[bank]!;
    let w = 0n;
    for (let j = C - 1; j >= 0; j--) w = (w << BigInt(this.p.d)) | BigInt(cells[addr * C + j]!);
    return w;
  }

  /** Fraction of cells at 0 over the whole filter. */
  zeroFraction(): number {
    let z = 0;
    for (const c of this.cells) for (let j = 0; j < c.length; j++) if (c[j] === 0) z++;
    return z / (this.p.k * this.p.cells);
  }

  /** Fraction of cells at 0 in each bank. */
  bankZeroFractions(): number[] {
    return this.cells.map((c) => {
      let z = 0;
      for (let j = 0; j < c.length; j++) if (c[j] === 0) z++;
      return z / c.length;
    });
  }
}
