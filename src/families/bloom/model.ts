/**
 * Reference model of the classic set filters, written from the libBf manual ("Basic": one bit
 * vector of m bits, k hash functions; insert sets bits h_1(x)..h_k(x), a query reports x when all
 * of them are set) and from §4 of the APBF paper (the partitioned filter of Mullin: k slices of
 * m/k bits, slice i addressed by h_i only). The blocked filter (Putze, Sanders, Singler 2007, and
 * the APBF paper's §6 blocks) sends a key to one block of B bits chosen by a hash and sets b bits
 * in it, one in each of the block's b parts of B/b bits.
 *
 * The model follows the hardware's physical layout so the bit arrays compare with the
 * simulator's memories bit for bit. The filter is `columns` bit arrays ("columns", one block RAM
 * memory each) and a key makes k probes, probe p testing/setting one bit of one column:
 * - basic:       1 column of m bits; probe p is bit h_p(x) (k hashes into the one column);
 * - partitioned: k columns of m/k bits; probe p is bit h_p(x) of column p (a slice);
 * - blocked:     b columns of m/b bits; one hash h(x) = [block index | offset_{b-1} .. offset_0]
 *   (offsets in the low bits, log2(B/b) bits each); probe p is bit block·(B/b) + offset_p of
 *   column p: part p of every block lives in column p, so the b bits of one block are b
 *   independent memories read in the same cycle (the APBBF's columns).
 * A column word of W bits holds column bits a·W .. a·W+W−1 at address a (bit i = bit a·W+i).
 *
 * Hashes: H3 (src/ir/h3.ts) keyed by the config's seed; hash function h is ceil(bits/32) H3 units,
 * unit u with salt 64·h + u (`hashSalt`), unit 0 in the low bits. The RTL uses the same units.
 */
import { h3Matrix, h3Tables } from '../../ir/h3.js';
import type { BloomParams } from './types.js';

export const H3_UNIT_BITS = 32;

/** Layout numbers the model, the compiled software filter and the RTL generator share. */
export interface BloomLayout {
  /** Memories. */
  columns: number;
  /** Bits per column. */
  columnBits: number;
  /** log2(columnBits): the width of a probe's bit index. */
  indexBits: number;
  /** H3 hash functions, and the bits of each. */
  hashes: number;
  hashBits: number;
  /** H3 units per hash function (each at most 32 bits). */
  hashUnits: number;
  /** Probes per key (k, or b). */
  probes: number;
  /** Blocked: bits of one offset inside a part (log2(B/b)) and of the block index; 0 otherwise. */
  offsetBits: number;
  blockIndexBits: number;
}

export function log2Exact(x: number, what: string): number {
  const e = Math.log2(x);
  if (!Number.isInteger(e)) throw new RangeError(`${what} must be a power of two, got ${x}`);
  return e;
}

export function bloomLayout(p: BloomParams): BloomLayout {
  const k = p.k;
  switch (p.filter) {
    case 'basic': {
      const indexBits = log2Exact(p.bits, 'bits');
      return layout(1, p.bits, indexBits, k, indexBits, k, 0, 0);
    }
    case 'partitioned': {
      const slice = p.bits / k;
      const indexBits = log2Exact(slice, 'bits / k');
      return layout(k, slice, indexBits, k, indexBits, k, 0, 0);
    }
    case 'blocked': {
      const offsetBits = log2Exact(p.blockBits / k, 'blockBits / bitsPerBlock');
      const blockIndexBits = log2Exact(p.bits / p.blockBits, 'bits / blockBits');
      const col = p.bits / k;
      return layout(
        k,
        col,
        blockIndexBits + offsetBits,
        1,
        k * offsetBits + blockIndexBits,
        k,
        offsetBits,
        blockIndexBits,
      );
    }
  }
}

function layout(
  columns: number,
  columnBits: number,
  indexBits: number,
  hashes: number,
  hashBits: number,
  probes: number,
  offsetBits: number,
  blockIndexBits: number,
): BloomLayout {
  return {
    columns,
    columnBits,
    indexBits,
    hashes,
    hashBits,
    hashUnits: Math.ceil(hashBits / H3_UNIT_BITS),
    probes,
    offsetBits,
    blockIndexBits,
  };
}

/** Salt of H3 unit `unit` of hash function `hash` (a contract with the RTL). */
export function hashSalt(hash: number, unit: number): number {
  return hash * 64 + unit;
}

/** Column of probe p. */
export function probeColumn(p: BloomParams, probe: number): number {
  return p.filter === 'basic' ? 0 : probe;
}

/**
 * Bit index of probe `probe` in its column, from the hash functions' values given as a reader of
 * hash bits: `field(hash, lo, len)` = bits lo..lo+len−1 of hash function `hash`.
 */
export function probeIndex(
  p: BloomParams,
  L: BloomLayout,
  probe: number,
  field: (hash: number, lo: number, len: number) => number,
): number {
  if (p.filter !== 'blocked') return field(probe, 0, L.indexBits);
  const block = field(0, p.k * L.offsetBits, L.blockIndexBits);
  return block * 2 ** L.offsetBits + field(0, probe * L.offsetBits, L.offsetBits);
}

export class BloomModel {
  readonly layout: BloomLayout;
  /** Every column, flat: column c starts at word c·colWords. */
  readonly bits: Uint32Array;
  readonly colWords: number;
  /** Inserts since creation or the last clear (the n of the analytics). */
  inserted = 0;
  /** tables[hash][unit]: H3 byte tables. */
  private readonly tables: Uint32Array[][];
  private readonly unitBits: number[];
  private readonly keyWords: number;
  private readonly keyBytes: number;
  private words: Uint32Array;
  /** Hash unit values of the loaded key: units[hash·hashUnits + u]. */
  private readonly units: Uint32Array;
  /** Flat bit position (column·colWords·32 + index) of every probe of the loaded key. */
  readonly at: Int32Array;

  constructor(readonly p: BloomParams) {
    const L = (this.layout = bloomLayout(p));
    if (L.indexBits > 30) throw new RangeError('column too large: bit index over 30 bits');
    this.colWords = Math.ceil(L.columnBits / 32);
    this.bits = new Uint32Array(L.columns * this.colWords);
    this.unitBits = Array.from({ length: L.hashUnits }, (_, u) => Math.min(H3_UNIT_BITS, L.hashBits - 32 * u));
    this.tables = Array.from({ length: L.hashes }, (_, h) =>
      this.unitBits.map((bits, u) => h3Tables(h3Matrix(p.seed, hashSalt(h, u), p.keyBits, bits), p.keyBits)),
    );
    this.keyWords = Math.ceil(p.keyBits / 32);
    this.keyBytes = Math.ceil(p.keyBits / 8);
    this.words = new Uint32Array(this.keyWords);
    this.units = new Uint32Array(L.hashes * L.hashUnits);
    this.at = new Int32Array(L.probes);
  }

  /** Load a key given as little-endian 32-bit words (no bigint), hash it, place its probes. */
  loadWords(words: ArrayLike<number>): void {
    for (let i = 0; i < this.keyWords; i++) this.words[i] = words[i]! >>> 0;
    this.hash();
  }

  loadKey(key: bigint): void {
    let v = key;
    for (let i = 0; i < this.keyWords; i++) {
      this.words[i] = Number(v & 0xffffffffn);
      v >>= 32n;
    }
    this.hash();
  }

  private hash(): void {
    const L = this.layout;
    const w = this.words;
    for (let h = 0; h < L.hashes; h++)
      for (let u = 0; u < L.hashUnits; u++) {
        const t = this.tables[h]![u]!;
        let acc = 0;
        for (let i = 0; i < this.keyBytes; i++) acc ^= t[i * 256 + ((w[i >>> 2]! >>> ((i & 3) << 3)) & 255)]!;
        this.units[h * L.hashUnits + u] = acc >>> 0;
      }
    const field = (h: number, lo: number, len: number): number => {
      if (len === 0) return 0;
      const base = h * L.hashUnits;
      const q = lo >>> 5;
      const r = lo & 31;
      let v = this.units[base + q]! >>> r;
      if (r + len > 32) v |= this.units[base + q + 1]! << (32 - r);
      return (v & (2 ** len - 1)) >>> 0;
    };
    for (let probe = 0; probe < L.probes; probe++)
      this.at[probe] = probeColumn(this.p, probe) * this.colWords * 32 + probeIndex(this.p, L, probe, field);
  }

  private isSet(x: number): boolean {
    return ((this.bits[x >>> 5]! >>> (x & 31)) & 1) === 1;
  }

  /** Membership of the loaded key: every probe's bit set. */
  queryLoaded(): boolean {
    for (let i = 0; i < this.at.length; i++) if (!this.isSet(this.at[i]!)) return false;
    return true;
  }

  /**
   * Probes a reader makes for the loaded key when it reads them in order and stops at the first 0
   * (APBF paper §4.2: "any bit at 0 terminates the query").
   */
  accessesLoaded(): number {
    for (let i = 0; i < this.at.length; i++) if (!this.isSet(this.at[i]!)) return i + 1;
    return this.at.length;
  }

  insertLoaded(): void {
    for (let i = 0; i < this.at.length; i++) {
      const x = this.at[i]!;
      this.bits[x >>> 5]! |= 1 << (x & 31);
    }
    this.inserted++;
  }

  query(key: bigint): boolean {
    this.loadKey(key);
    return this.queryLoaded();
  }

  insert(key: bigint): void {
    this.loadKey(key);
    this.insertLoaded();
  }

  /** The answer as of before its own insert. */
  testAndInsert(key: bigint): boolean {
    this.loadKey(key);
    const hit = this.queryLoaded();
    this.insertLoaded();
    return hit;
  }

  queryWords(words: ArrayLike<number>): boolean {
    this.loadWords(words);
    return this.queryLoaded();
  }

  insertWords(words: ArrayLike<number>): void {
    this.loadWords(words);
    this.insertLoaded();
  }

  testAndInsertWords(words: ArrayLike<number>): boolean {
    this.loadWords(words);
    const hit = this.queryLoaded();
    this.insertLoaded();
    return hit;
  }

  clear(): void {
    this.bits.fill(0);
    this.inserted = 0;
  }

  /** Set bits of column c (all columns when c is omitted). */
  ones(c?: number): number {
    const from = c === undefined ? 0 : c * this.colWords;
    const to = c === undefined ? this.bits.length : from + this.colWords;
    let n = 0;
    for (let i = from; i < to; i++) {
      let v = this.bits[i]!;
      while (v) {
        v &= v - 1;
        n++;
      }
    }
    return n;
  }

  /** Word `addr` (W bits) of column c, as the hardware stores it. */
  word(c: number, addr: number, wordBits: number): bigint {
    const base = c * this.colWords * 32;
    let v = 0n;
    for (let i = wordBits - 1; i >= 0; i--) {
      const x = base + addr * wordBits + i;
      v = (v << 1n) | BigInt((this.bits[x >>> 5]! >>> (x & 31)) & 1);
    }
    return v;
  }
}
