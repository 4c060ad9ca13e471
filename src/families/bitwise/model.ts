/**
 * Reference model of the bitwise Bloom filter (libBf manual, "Multisets" → "Bitwise"), written
 * from the manual's text and laid out as the hardware stores it, so the counters can be compared
 * with the simulator's block RAMs word for word.
 *
 * Structure. l counting Bloom filters V_0..V_{l-1}; V_i has m_i counters of w_i bits and k_i hash
 * functions. Each level is partitioned: its m_i counters form k_i banks of m_i/k_i, hash j of the
 * level picks one counter in bank j (so an item's k_i counters are always distinct). The count of
 * an item at a level is the minimum of its k_i counters (the manual's minimum selection, MS).
 *
 * Add (the manual: "we first look at the counters in the first level V_0. If there is enough room
 * (i.e., width) available, we simply perform the increment. If the counter overflows, we insert x
 * into V_1 and remove it from V_0"), read literally, level by level from i = 0:
 *   - "the counter" of x at V_i is its MS count c_i = min of its k_i counters; "enough room" is
 *     c_i < 2^{w_i} − 1: then each of x's k_i counters is incremented and the add ends. A counter
 *     of x that is already at 2^{w_i} − 1 (raised by other items) stays there: the Counting
 *     section's "simply not continuing to count rather than overflowing".
 *   - otherwise c_i + 1 would overflow: x is inserted into V_{i+1} (the same step one level up)
 *     and removed from V_i, i.e. its count c_i is taken off each of its k_i counters. Since every
 *     counter of x is ≥ c_i = 2^{w_i} − 1, the largest value, every one equals it, and removing x
 *     leaves each of them at 0 — the carry of a mixed-radix counter.
 *   - The manual adds levels without bound; here l is fixed, so an add that would carry out of
 *     V_{l−1} (every level of x at its maximum) is dropped and changes nothing: the count
 *     saturates at 2^{Σw} − 1 instead of wrapping (the "sat" flag of the responses).
 * Count: C = Σ_i c_i · 2^{Σ_{j<i} w_j}. (The manual prints the exponent Σ_{j=0}^{i} w_i, which
 * weights level 0 by 2^{w_0}: one add would count 2^{w_0}; the carry above makes a lone item's
 * counters the digits of its count in the mixed radix (2^{w_0}, 2^{w_1}, …), so the weight of
 * digit i is the product of the radices below it, 2^{Σ_{j<i} w_j}. See README.)
 *
 * Hashes: bank j of level i uses H3 keyed by the config's seed with salt `hashSalt(i, j)`, to
 * log2(m_i/k_i) bits: the counter index. Counter index x of a bank is lane x mod lanes of word
 * ⌊x / lanes⌋, lane 0 in the low bits of the word.
 */
import { h3Matrix, h3Tables } from '../../ir/h3.js';
import type { BitwiseLevel, BitwiseParams, LevelLayout } from './types.js';

/** Salt of the H3 unit of bank `bank` of level `level` (documented contract with the RTL). */
export function hashSalt(level: number, bank: number): number {
  return level * 64 + bank;
}

/** Counters per block RAM word: the largest power of two that fits `wordBits`, and at most half a bank. */
export function lanesFor(width: number, wordBits: number, bankCells: number): number {
  let p = 1;
  while (2 * p * width <= wordBits && 2 * p <= bankCells / 2) p *= 2;
  return p;
}

/** A level's layout; `cells / k` must be a power of two ≥ 2 and width ≤ wordBits (config.ts checks). */
export function levelLayout(l: BitwiseLevel, wordBits: number, offset: number): LevelLayout {
  const bankCells = l.cells / l.k;
  const indexBits = Math.log2(bankCells);
  if (!Number.isInteger(indexBits) || bankCells < 2) throw new RangeError(`cells/k must be a power of two >= 2`);
  const lanes = lanesFor(l.width, wordBits, bankCells);
  const depth = bankCells / lanes;
  return {
    ...l,
    bankCells,
    indexBits,
    lanes,
    laneBits: Math.log2(lanes),
    wordWidth: lanes * l.width,
    depth,
    addrBits: Math.log2(depth),
    max: 2 ** l.width - 1,
    offset,
  };
}

/** Every level's layout, offsets accumulated. */
export function bitwiseLayout(levels: readonly BitwiseLevel[], wordBits: number): LevelLayout[] {
  let offset = 0;
  return levels.map((l) => {
    const out = levelLayout(l, wordBits, offset);
    offset += l.width;
    return out;
  });
}

/** The count from the levels' minima: C = Σ_i c_i · 2^{Σ_{j<i} w_j}. */
export function countOf(levels: readonly LevelLayout[], minima: readonly number[]): bigint {
  let c = 0n;
  levels.forEach((L, i) => (c += BigInt(minima[i]!) << BigInt(L.offset)));
  return c;
}

/** The manual's formula as printed, C = Σ_i c_i · 2^{Σ_{j=0}^{i} w_i}, for the README's comparison. */
export function countAsPrinted(levels: readonly LevelLayout[], minima: readonly number[]): bigint {
  let c = 0n;
  levels.forEach((L, i) => (c += BigInt(minima[i]!) << BigInt((i + 1) * L.width)));
  return c;
}

/** The largest count: every level at its maximum, 2^{Σw} − 1. */
export function maxCount(levels: readonly LevelLayout[]): bigint {
  return countOf(
    levels,
    levels.map((L) => L.max),
  );
}

export interface CountResult {
  /** count > 0. */
  hit: boolean;
  count: bigint;
  /** Every level of the item at its maximum: the count is 2^{Σw} − 1 and an add is dropped. */
  sat: boolean;
  /** The minimum of the item's counters at each level (c_i). */
  minima: number[];
}

export class BitwiseModel {
  readonly levels: LevelLayout[];
  /** counters[i][j]: bank j of level i, bankCells counters. */
  readonly counters: Uint32Array[][];
  private readonly tables: Uint32Array[][];
  private readonly keyBytes: number;
  /** Adds dropped because every level of the item was full. */
  saturatedAdds = 0;

  constructor(readonly p: BitwiseParams) {
    this.levels = p.levels;
    this.counters = p.levels.map((L) => Array.from({ length: L.k }, () => new Uint32Array(L.bankCells)));
    this.tables = p.levels.map((L, i) =>
      Array.from({ length: L.k }, (_, j) =>
        h3Tables(h3Matrix(p.seed, hashSalt(i, j), p.keyBits, L.indexBits), p.keyBits),
      ),
    );
    this.keyBytes = Math.ceil(p.keyBits / 8);
  }

  /** The counter index of `key` in every bank: idx[i][j]. */
  positions(key: bigint): number[][] {
    const bytes: number[] = [];
    let v = key;
    for (let b = 0; b < this.keyBytes; b++) {
      bytes.push(Number(v & 0xffn));
      v >>= 8n;
    }
    return this.tables.map((level) =>
      level.map((t) => {
        let h = 0;
        for (let b = 0; b < bytes.length; b++) h ^= t[b * 256 + bytes[b]!]!;
        return h >>> 0;
      }),
    );
  }

  private minimaAt(pos: number[][]): number[] {
    return this.levels.map((_, i) => Math.min(...pos[i]!.map((x, j) => this.counters[i]![j]![x]!)));
  }

  count(key: bigint): CountResult {
    return this.countAt(this.positions(key));
  }

  private countAt(pos: number[][]): CountResult {
    const minima = this.minimaAt(pos);
    const count = countOf(this.levels, minima);
    return { hit: count > 0n, count, sat: minima.every((c, i) => c === this.levels[i]!.max), minima };
  }

  /** Adds one occurrence of `key` (see the header); returns false when the add was dropped (saturated). */
  insert(key: bigint): boolean {
    return this.insertAt(this.positions(key));
  }

  private insertAt(pos: number[][]): boolean {
    const minima = this.minimaAt(pos);
    if (minima.every((c, i) => c === this.levels[i]!.max)) {
      this.saturatedAdds++;
      return false;
    }
    for (let i = 0; i < this.levels.length; i++) {
      const L = this.levels[i]!;
      const cells = pos[i]!;
      if (minima[i]! < L.max) {
        // Enough room: increment x's counters (a counter already at its maximum stays there).
        cells.forEach((x, j) => {
          const bank = this.counters[i]![j]!;
          if (bank[x]! < L.max) bank[x]!++;
        });
        return true;
      }
      // Overflow: insert x into V_{i+1} (next iteration) and remove it from V_i: take its count
      // c_i off each of its counters (every one is at the maximum c_i, so each becomes 0).
      cells.forEach((x, j) => {
        this.counters[i]![j]![x]! -= minima[i]!;
      });
    }
    throw new Error('unreachable: a non-saturated add stops at some level');
  }

  /** The count as of before this op, then the add. */
  testAndInsert(key: bigint): CountResult {
    const pos = this.positions(key);
    const r = this.countAt(pos);
    this.insertAt(pos);
    return r;
  }

  clear(): void {
    for (const level of this.counters) for (const bank of level) bank.fill(0);
    this.saturatedAdds = 0;
  }

  /** Word `addr` of the block RAM of bank `bank` of level `level` (lane 0 in the low bits). */
  word(level: number, bank: number, addr: number): bigint {
    const L = this.levels[level]!;
    const cells = this.counters[level]![bank]!;
    let w = 0n;
    for (let lane = L.lanes - 1; lane >= 0; lane--) w = (w << BigInt(L.width)) | BigInt(cells[addr * L.lanes + lane]!);
    return w;
  }
}
