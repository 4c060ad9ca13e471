/**
 * Reference model of Age-Partitioned Bloom Filters (Shtul, Baquero, Almeida, §5) and their
 * blocked variant APBBF (§6), written from the paper and following the hardware's physical layout
 * so that bit arrays can be compared with the simulator's memories bit for bit.
 *
 * Structure. k+l logical segments s_0..s_{k+l-1} live in a circular buffer of P = k+l+spares
 * physical banks; s_i is bank (base + i) mod P. Each bank has its own fixed hash (H3 keyed by the
 * config seed, salt = bank), so a segment keeps its hash as it ages (§5.1). A segment is a blocked
 * Bloom filter (§6): the hash picks one of m/B blocks of B bits, the block is a partitioned filter
 * of b parts of B/b bits, and one bit is set/tested in every part. The basic APBF is the case
 * B = b = 1 (a block is one bit: the segment is a plain slice of m bits).
 *
 * Physically, part j of every block is stored in column j of the bank (m/b bits): the bit of
 * block x at offset o is column bit x*(B/b) + o. The hardware stores each column in its own block
 * RAM so the b bits of one block are read in one cycle.
 *
 * Aging. A shift decrements base (s_i becomes s_{i+1}); the bank that leaves the window (new
 * logical index k+l) becomes a spare and is cleared; the oldest spare comes back as the empty
 * s_0. With spares = 0 this is exactly the paper's buffer of k+l slices with s_0 reset at each
 * shift. A shift happens before an insert when g inserts have been made since the last shift
 * (the paper's "n mod g = 0", with the counter reset by `tick`), or on `tick`.
 */
import { h3Matrix, h3Tables } from '../../ir/h3.js';
import type { ApbfParams } from './types.js';

export const H3_UNIT_BITS = 32;

/** Derived layout numbers shared by the model and the RTL generator. */
export interface ApbfLayout {
  banks: number;
  /** Bits of the block index. */
  blockIndexBits: number;
  /** Bits of one offset inside a part (log2(B/b)). */
  offsetBits: number;
  /** Total hash bits per bank: b*offsetBits + blockIndexBits. */
  hashBits: number;
  /** H3 units per bank (each at most 32 output bits). */
  hashUnits: number;
  /** Bits per column (m / b). */
  columnBits: number;
}

export function log2Exact(x: number, what: string): number {
  const e = Math.log2(x);
  if (!Number.isInteger(e)) throw new RangeError(`${what} must be a power of two, got ${x}`);
  return e;
}

export function apbfLayout(p: ApbfParams): ApbfLayout {
  const B = p.blockBits;
  const b = p.bitsPerBlock;
  const offsetBits = log2Exact(B / b, 'blockBits / bitsPerBlock');
  const blockIndexBits = log2Exact(p.segmentBits / B, 'segmentBits / blockBits');
  const hashBits = b * offsetBits + blockIndexBits;
  return {
    banks: p.k + p.l + p.spares,
    blockIndexBits,
    offsetBits,
    hashBits,
    hashUnits: Math.ceil(hashBits / H3_UNIT_BITS),
    columnBits: p.segmentBits / b,
  };
}

/** Salt of H3 unit `unit` of bank `bank` (documented contract with the RTL). */
export function hashSalt(bank: number, unit: number): number {
  return bank * 64 + unit;
}

export interface QueryResult {
  hit: boolean;
  /** Segment reads made by Algorithm 1 (the paper's "accesses"). */
  accesses: number;
}

export class ApbfModel {
  readonly layout: ApbfLayout;
  /** columns[bank][part]: bitset of m/b bits (views into `bits`). */
  readonly columns: Uint32Array[][];
  /** Every column, flat: column (bank·b + part) starts at word (bank·b + part)·colWords. */
  private readonly bits: Uint32Array;
  private readonly colWords: number;
  /** Column bit index of the loaded key, per (bank, part). */
  private readonly idx: Int32Array;
  private readonly P: number;
  private readonly K: number;
  private readonly Lw: number;
  private readonly G: number;
  private readonly b: number;
  private readonly tables: Uint32Array[][]; // [bank][unit]
  private readonly keyWords: number;
  private readonly keyBytes: number;
  base = 0;
  /** Inserts since the last shift. */
  count = 0;
  /** Inserts since creation or clear (the paper's n). */
  inserted = 0;
  shifts = 0;

  constructor(readonly p: ApbfParams) {
    this.layout = apbfLayout(p);
    const L = this.layout;
    this.colWords = Math.ceil(L.columnBits / 32);
    this.bits = new Uint32Array(L.banks * p.bitsPerBlock * this.colWords);
    this.columns = Array.from({ length: L.banks }, (_, bank) =>
      Array.from({ length: p.bitsPerBlock }, (_, j) => {
        const at = (bank * p.bitsPerBlock + j) * this.colWords;
        return this.bits.subarray(at, at + this.colWords);
      }),
    );
    this.idx = new Int32Array(L.banks * p.bitsPerBlock);
    this.P = L.banks;
    this.K = p.k;
    this.Lw = p.l;
    this.G = p.generation;
    this.b = p.bitsPerBlock;
    this.tables = Array.from({ length: L.banks }, (_, bank) =>
      Array.from({ length: L.hashUnits }, (_, u) =>
        h3Tables(
          h3Matrix(p.seed, hashSalt(bank, u), p.keyBits, Math.min(H3_UNIT_BITS, L.hashBits - H3_UNIT_BITS * u)),
          p.keyBits,
        ),
      ),
    );
    this.keyWords = Math.ceil(p.keyBits / 32);
    this.keyBytes = Math.ceil(p.keyBits / 8);
    this.units = new Uint32Array(L.banks * L.hashUnits + 1);
    // All hash units of all banks in one table per key byte, two units per 32-bit word where they
    // fit in 16 bits: one pass over the key bytes computes every bank's hash (H3 is linear).
    const unitBits = Array.from({ length: L.hashUnits }, (_, u) =>
      Math.min(H3_UNIT_BITS, L.hashBits - H3_UNIT_BITS * u),
    );
    const nUnits = L.banks * L.hashUnits;
    this.packShift = new Uint8Array(nUnits);
    this.packWord = new Uint16Array(nUnits);
    this.packMask = new Uint32Array(nUnits);
    let word = 0;
    let used = 0;
    for (let i = 0; i < nUnits; i++) {
      const bits = unitBits[i % L.hashUnits]!;
      if (used > 0 && (used + bits > 32 || bits > 16 || used > 16)) {
        word++;
        used = 0;
      }
      this.packWord[i] = word;
      this.packShift[i] = used;
      this.packMask[i] = bits === 32 ? 0xffffffff : (1 << bits) - 1;
      used += bits;
    }
    this.vec = word + 1;
    this.acc = new Uint32Array(this.vec);
    this.comb = new Uint32Array(this.keyBytes * 256 * this.vec);
    for (let i = 0; i < nUnits; i++) {
      const t = this.tables[Math.floor(i / L.hashUnits)]![i % L.hashUnits]!;
      for (let e = 0; e < this.keyBytes * 256; e++)
        this.comb[e * this.vec + this.packWord[i]!]! ^= t[e]! << this.packShift[i]!;
    }
    if (L.blockIndexBits > 30 || L.offsetBits > 30) throw new RangeError('segment too large: block index over 30 bits');
  }

  /** Physical bank of logical segment i. */
  pos(i: number): number {
    return (this.base + i) % this.layout.banks;
  }

  private words = new Uint32Array(16);
  /** Key generation: bumps on every new key so per-bank hashes are computed once per key. */
  private keyStamp = 0;
  private readonly units: Uint32Array = new Uint32Array(0);
  private readonly comb: Uint32Array;
  private readonly acc: Uint32Array;
  private readonly vec: number;
  private readonly packWord: Uint16Array;
  private readonly packShift: Uint8Array;
  private readonly packMask: Uint32Array;
  /** keyStamp for which `units` holds every bank's hash units. */
  private unitsStamp = -1;

  /** Every bank's hash units of the loaded key, in one pass over the key bytes. */
  private hashAll(): void {
    const acc = this.acc;
    const V = this.vec;
    const comb = this.comb;
    const w = this.words;
    acc.fill(0);
    for (let i = 0; i < this.keyBytes; i++) {
      const base = (i * 256 + ((w[i >>> 2]! >>> ((i & 3) << 3)) & 255)) * V;
      for (let v = 0; v < V; v++) acc[v]! ^= comb[base + v]!;
    }
    const u = this.units;
    for (let i = 0; i < this.packWord.length; i++)
      u[i] = (acc[this.packWord[i]!]! >>> this.packShift[i]!) & this.packMask[i]!;
    this.unitsStamp = this.keyStamp;
    const L = this.layout;
    const b = this.b;
    const partBits = 2 ** L.offsetBits;
    const idx = this.idx;
    for (let bank = 0; bank < this.P; bank++) {
      const base = bank * L.hashUnits;
      // The block index may be wider than 30 bits only for absurd segment sizes (checked in the constructor).
      const block = this.field(base, b * L.offsetBits, L.blockIndexBits);
      for (let j = 0; j < b; j++)
        idx[bank * b + j] = block * partBits + this.field(base, j * L.offsetBits, L.offsetBits);
    }
  }

  private loadKey(key: bigint): void {
    if (this.words.length < this.keyWords) this.words = new Uint32Array(this.keyWords);
    let v = key;
    for (let i = 0; i < this.keyWords; i++) {
      this.words[i] = Number(v & 0xffffffffn);
      v >>= 32n;
    }
    this.keyStamp++;
  }

  /** Load a key given as little-endian 32-bit words (the allocation-free path: no bigint). */
  loadWords(words: ArrayLike<number>): void {
    for (let i = 0; i < this.keyWords; i++) this.words[i] = words[i]! >>> 0;
    this.keyStamp++;
  }

  /** query/insert/testAndInsert on a key passed as 32-bit words (what a packet parser hands over). */
  queryWords(words: ArrayLike<number>): boolean {
    this.loadWords(words);
    return this.queryLoaded().hit;
  }

  insertWords(words: ArrayLike<number>): void {
    this.loadWords(words);
    this.insertLoaded();
  }

  testAndInsertWords(words: ArrayLike<number>): boolean {
    this.loadWords(words);
    const r = this.queryLoaded().hit;
    this.insertLoaded();
    return r;
  }

  /** Bits [lo, lo + len) of the hash units of `bank` (len <= 30, no allocation). */
  private field(base: number, lo: number, len: number): number {
    if (len === 0) return 0;
    const u = this.units;
    const q = lo >>> 5;
    const r = lo & 31;
    let v = u[base + q]! >>> r;
    if (r + len > 32) v |= u[base + q + 1]! << (32 - r);
    return (v & ((1 << len) - 1)) >>> 0;
  }

  /** Is the key's block in segment (physical bank) set in all b parts? */
  private segmentMatch(bank: number): boolean {
    if (this.unitsStamp !== this.keyStamp) this.hashAll();
    const b = this.b;
    const bits = this.bits;
    const cw = this.colWords;
    for (let j = bank * b, end = j + b; j < end; j++) {
      const x = this.idx[j]!;
      if (((bits[j * cw + (x >>> 5)]! >>> (x & 31)) & 1) === 0) return false;
    }
    return true;
  }

  /** Algorithm 1 (§5.4): k consecutive matches among s_0..s_{k+l-1}, scanning from s_l backwards. */
  queryWithAccesses(key: bigint): QueryResult {
    this.loadKey(key);
    return { ...this.queryLoaded() };
  }

  private readonly result: QueryResult = { hit: false, accesses: 0 };

  /** Algorithm 1 on the loaded key (returns a reused object: copy what you keep). */
  private queryLoaded(): QueryResult {
    const k = this.K;
    const P = this.P;
    let i = this.Lw;
    let p = 0;
    let c = 0;
    let accesses = 0;
    const res = this.result;
    while (i >= 0) {
      accesses++;
      let bank = this.base + i;
      if (bank >= P) bank -= P;
      if (this.segmentMatch(bank)) {
        c++;
        i++;
        if (p + c === k) {
          res.hit = true;
          res.accesses = accesses;
          return res;
        }
      } else {
        i -= k;
        p = c;
        c = 0;
      }
    }
    res.hit = false;
    res.accesses = accesses;
    return res;
  }

  query(key: bigint): boolean {
    return this.queryWithAccesses(key).hit;
  }

  /** Segment-level truth: does any window j in 0..l have k consecutive matching segments? */
  queryBrute(key: bigint): boolean {
    this.loadKey(key);
    const { k, l } = this.p;
    const m = Array.from({ length: k + l }, (_, i) => this.segmentMatch(this.pos(i)));
    for (let j = 0; j <= l; j++) if (m.slice(j, j + k).every(Boolean)) return true;
    return false;
  }

  shift(): void {
    const P = this.layout.banks;
    this.base = (this.base + P - 1) % P;
    this.clearBank(this.pos(this.p.k + this.p.l)); // the segment that just left the window
    this.shifts++;
  }

  private clearBank(bank: number): void {
    for (const col of this.columns[bank]!) col.fill(0);
  }

  insert(key: bigint): void {
    this.loadKey(key);
    this.insertLoaded();
  }

  /** Insert the key already loaded (its hashes may be cached from a query of the same key). */
  private insertLoaded(): void {
    if (this.count === this.G) {
      this.shift();
      this.count = 0;
    }
    this.count++;
    this.inserted++;
    if (this.unitsStamp !== this.keyStamp) this.hashAll();
    const b = this.b;
    const bits = this.bits;
    const cw = this.colWords;
    const P = this.P;
    for (let i = 0; i < this.K; i++) {
      let bank = this.base + i;
      if (bank >= P) bank -= P;
      for (let j = bank * b, end = j + b; j < end; j++) {
        const x = this.idx[j]!;
        bits[j * cw + (x >>> 5)]! |= 1 << (x & 31);
      }
    }
  }

  /** The answer as of before its own insert (and before the shift that insert may cause). */
  testAndInsert(key: bigint): boolean {
    const r = this.query(key);
    this.insertLoaded();
    return r;
  }

  /** Force a shift (time-based generations) and restart the generation count. */
  tick(): void {
    this.shift();
    this.count = 0;
  }

  clear(): void {
    for (let b = 0; b < this.layout.banks; b++) this.clearBank(b);
    this.base = 0;
    this.count = 0;
    this.inserted = 0;
  }

  /** Live banks (not spares): the ones whose contents the hardware must match. */
  liveBanks(): number[] {
    return Array.from({ length: this.p.k + this.p.l }, (_, i) => this.pos(i));
  }

  /** Set word `addr` (W bits) of column `part` of `bank` (the inverse of `word`: snapshot loading). */
  setWord(bank: number, part: number, addr: number, wordBits: number, value: bigint): void {
    const col = this.columns[bank]![part]!;
    for (let i = 0; i < wordBits; i++) {
      const x = addr * wordBits + i;
      const bit = 1 << (x & 31);
      if ((value >> BigInt(i)) & 1n) col[x >>> 5]! |= bit;
      else col[x >>> 5]! &= ~bit;
    }
  }

  /** Word `addr` (W bits) of column `part` of `bank`, as the hardware stores it. */
  word(bank: number, part: number, addr: number, wordBits: number): bigint {
    const col = this.columns[bank]![part]!;
    let v = 0n;
    for (let i = wordBits - 1; i >= 0; i--) {
      const x = addr * wordBits + i;
      v = (v << 1n) | BigInt((col[x >>> 5]! >>> (x & 31)) & 1);
    }
    return v;
  }
}
