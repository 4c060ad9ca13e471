/**
 * Reference model of the A² (active-active buffering) Bloom filter: Yoon, "Aging Bloom Filter
 * with Two Active Buffers for Dynamic Sets", IEEE TKDE 22(1), 2010, as the libBf manual
 * (section "Aging" → "A²", the seed text) describes it, in the partitioned form the hardware
 * uses and with the hardware's physical layout, so bit arrays compare with the block RAMs bit
 * for bit.
 *
 * Two halves (active, standby) of k banks of `bankBits` bits each; hash u (H3 keyed by the config
 * seed, salt `hashSalt(u)`) picks one bit in bank u of a half — the same k hashes in both halves.
 * - query(x): x is in the active half or in the standby half (k bits all set in one of them).
 * - insert(x): if x is in the active half, nothing happens (no count). Otherwise its k bits are
 *   set in the active half and the count of real inserts into that half goes up; when it
 *   reaches κ, the standby half is flushed and the halves swap (the active half becomes the
 *   standby, the flushed one the new, empty active half), and the count restarts at 0.
 *   Our reading of the manual's order ("insert it in V1 and test whether V1 has reached its
 *   capacity; if it is full, flush V2 and swap; thereafter insert the item in V1 (the old V2)"):
 *   the swap comes right after the κ-th real insert, and the key that completed the half is not
 *   inserted again into the new active half (libBf's code inserts it into both halves, so each
 *   half holds κ + 1 keys; Yoon's filter inserts the key that finds the active half full only
 *   into the new half). Each half so holds exactly κ keys when it becomes the standby.
 * - testAndInsert(x): the query's answer, then the insert.
 * - clear: both halves empty, count 0.
 *
 * Physically there are three sets of k banks (the hardware flushes a half in the background, so
 * it needs a third set): the active set is `act`, the standby set (act + 2) mod 3, the set being
 * flushed (act + 1) mod 3 — and it becomes the next active set. A swap advances act by one.
 */
import { h3Matrix, h3Tables } from '../../ir/h3.js';
import type { A2Params } from './types.js';
import { popcount } from '../../util/bits.js';

/** The three physical sets of banks. */
export const SETS = 3;

/** Salt of hash u's H3 matrix (documented contract with the RTL). */
export function hashSalt(u: number): number {
  return 0xa2_00 + u;
}

/** Bits of a bank index (log2 bankBits). */
export function indexBits(p: Pick<A2Params, 'bankBits'>): number {
  const e = Math.log2(p.bankBits);
  if (!Number.isInteger(e) || e < 1) throw new RangeError(`bankBits must be a power of two >= 2, got ${p.bankBits}`);
  return e;
}

/** The set roles for an active set index: [active, standby, flushed]. */
export function roles(act: number): { active: number; standby: number; flushed: number } {
  return { active: act, standby: (act + 2) % SETS, flushed: (act + 1) % SETS };
}

export class A2Model {
  /** bits[set][bank]: a bitset of bankBits bits. */
  readonly bits: Uint32Array[][];
  private readonly tables: Uint32Array[];
  private readonly keyWords: number;
  private readonly keyBytes: number;
  private readonly words: Uint32Array;
  private readonly idx: Int32Array;
  /** The active set. */
  act = 0;
  /** Real inserts into the active half since the last swap (0..κ−1). */
  count = 0;
  /** Real inserts since creation or clear. */
  realInserts = 0;
  swaps = 0;

  constructor(readonly p: A2Params) {
    const ib = indexBits(p);
    const w = Math.ceil(p.bankBits / 32);
    this.bits = Array.from({ length: SETS }, () => Array.from({ length: p.k }, () => new Uint32Array(w)));
    this.tables = Array.from({ length: p.k }, (_, u) =>
      h3Tables(h3Matrix(p.seed, hashSalt(u), p.keyBits, ib), p.keyBits),
    );
    this.keyWords = Math.ceil(p.keyBits / 32);
    this.keyBytes = Math.ceil(p.keyBits / 8);
    this.words = new Uint32Array(this.keyWords);
    this.idx = new Int32Array(p.k);
  }

  /** Bank indexes of a key (hash u for bank u). */
  indexes(key: bigint): number[] {
    this.load(key);
    return Array.from(this.idx);
  }

  private load(key: bigint): void {
    let v = key;
    for (let j = 0; j < this.keyWords; j++) {
      this.words[j] = Number(v & 0xffffffffn);
      v >>= 32n;
    }
    this.hashWords(this.words);
  }

  private hashWords(words: ArrayLike<number>): void {
    for (let u = 0; u < this.p.k; u++) {
      const t = this.tables[u]!;
      let h = 0;
      for (let i = 0; i < this.keyBytes; i++) h ^= t[i * 256 + ((words[i >>> 2]! >>> ((i & 3) * 8)) & 255)]!;
      this.idx[u] = h >>> 0;
    }
  }

  private inSet(set: number): boolean {
    const banks = this.bits[set]!;
    for (let u = 0; u < this.p.k; u++) {
      const x = this.idx[u]!;
      if (((banks[u]![x >>> 5]! >>> (x & 31)) & 1) === 0) return false;
    }
    return true;
  }

  private queryLoaded(): boolean {
    const r = roles(this.act);
    return this.inSet(r.active) || this.inSet(r.standby);
  }

  private insertLoaded(): void {
    if (this.inSet(this.act)) return;
    const banks = this.bits[this.act]!;
    for (let u = 0; u < this.p.k; u++) {
      const x = this.idx[u]!;
      banks[u]![x >>> 5]! |= 1 << (x & 31);
    }
    this.realInserts++;
    if (++this.count === this.p.kappa) {
      // Flush the standby half; it becomes the next active set after this swap.
      const flushed = roles(this.act).standby;
      for (const b of this.bits[flushed]!) b.fill(0);
      this.act = (this.act + 1) % SETS;
      this.count = 0;
      this.swaps++;
    }
  }

  query(key: bigint): boolean {
    this.load(key);
    return this.queryLoaded();
  }

  insert(key: bigint): void {
    this.load(key);
    this.insertLoaded();
  }

  testAndInsert(key: bigint): boolean {
    this.load(key);
    const hit = this.queryLoaded();
    this.insertLoaded();
    return hit;
  }

  /** The same on a key given as little-endian 32-bit words (no allocation). */
  queryWords(words: ArrayLike<number>): boolean {
    this.hashWords(words);
    return this.queryLoaded();
  }

  insertWords(words: ArrayLike<number>): void {
    this.hashWords(words);
    this.insertLoaded();
  }

  testAndInsertWords(words: ArrayLike<number>): boolean {
    this.hashWords(words);
    const hit = this.queryLoaded();
    this.insertLoaded();
    return hit;
  }

  clear(): void {
    for (const set of this.bits) for (const b of set) b.fill(0);
    this.act = 0;
    this.count = 0;
    this.realInserts = 0;
  }

  /** The sets that hold a half: active, then standby. */
  liveSets(): number[] {
    const r = roles(this.act);
    return [r.active, r.standby];
  }

  /** Word `addr` (wordBits wide) of bank `bank` in set `set`. */
  word(set: number, bank: number, addr: number, wordBits: number): bigint {
    const b = this.bits[set]![bank]!;
    let v = 0n;
    for (let i = 0; i < wordBits; i++) {
      const x = addr * wordBits + i;
      if ((b[x >>> 5]! >>> (x & 31)) & 1) v |= 1n << BigInt(i);
    }
    return v;
  }

  /** Writes word `addr` (wordBits wide) of bank `bank` in set `set` (a snapshot's block RAM word). */
  setWord(set: number, bank: number, addr: number, wordBits: number, value: bigint): void {
    const b = this.bits[set]![bank]!;
    for (let i = 0; i < wordBits; i++) {
      const x = addr * wordBits + i;
      if ((value >> BigInt(i)) & 1n) b[x >>> 5]! |= 1 << (x & 31);
      else b[x >>> 5]! &= ~(1 << (x & 31));
    }
  }

  /** Set bits of a set (all its banks). */
  ones(set: number): number {
    let n = 0;
    for (const b of this.bits[set]!) for (const w of b) n += popcount(w);
    return n;
  }
}
