/**
 * The compiled software filter of a PBF-2 / SBF config (the bench's software side): every level's
 * slices in one Uint8Array, the H3 byte tables of every (level, slice) resolved once, keys read
 * from 32-bit words without allocation, the canonical cover walked in place. Bit for bit the
 * reference model's filter (test/families/pbf/fast.test.ts).
 */
import { PairHashes, hashSalt } from './model.js';
import type { PbfDerived } from './types.js';

export interface CompiledPbf {
  bits: Uint8Array;
  /** Offset of slice j of level i in `bits`. */
  offset(level: number, j: number): number;
  insert(words: Uint32Array, off: number, t: number): void;
  query(words: Uint32Array, off: number, s: number, e: number): boolean;
}

export function compilePbf(c: PbfDerived): CompiledPbf {
  const hashes = new PairHashes(c.seed, c.keyBits, c.timeBits);
  const keyBytes = Math.ceil(c.keyBits / 8);
  const cellBytes = hashes.cellByteCount;
  interface Slice {
    keyT: Uint32Array;
    cellT: Uint32Array;
    base: number;
    mask: number;
  }
  const byHeight: (Slice[] | null)[] = Array.from({ length: c.timeBits + 1 }, () => null);
  const offsets: number[][] = [];
  let at = 0;
  const levels = c.levels.map((lv) => {
    const slices: Slice[] = [];
    const offs: number[] = [];
    for (let j = 0; j < lv.k; j++) {
      const t = hashes.tables(hashSalt(lv.height, j));
      slices.push({ keyT: t.key, cellT: t.cell, base: at, mask: lv.sliceBits - 1 });
      offs.push(at);
      at += lv.sliceBits;
    }
    offsets.push(offs);
    byHeight[lv.height] = slices;
    return { height: lv.height, slices };
  });
  const bits = new Uint8Array(at);
  const index = (sl: Slice, words: Uint32Array, off: number, cell: number): number => {
    let h = 0;
    for (let i = 0; i < keyBytes; i++) h ^= sl.keyT[i * 256 + ((words[off + (i >>> 2)]! >>> ((i & 3) * 8)) & 255)]!;
    for (let i = 0; i < cellBytes; i++) h ^= sl.cellT[i * 256 + ((cell >>> (8 * i)) & 255)]!;
    return sl.base + ((h >>> 0) & sl.mask);
  };
  const probe = (height: number, words: Uint32Array, off: number, cell: number): boolean => {
    const slices = byHeight[height];
    if (!slices) return true;
    for (const sl of slices) if (bits[index(sl, words, off, cell)] === 0) return false;
    return true;
  };
  return {
    bits,
    offset: (level, j) => offsets[level]![j]!,
    insert(words, off, t) {
      for (const lv of levels) {
        const cell = t >>> lv.height;
        for (const sl of lv.slices) bits[index(sl, words, off, cell)] = 1;
      }
    },
    query(words, off, s, e) {
      if (s > e) return false;
      if (c.filter === 'sbf') {
        for (let t = s; t <= e; t++) if (probe(0, words, off, t)) return true;
        return false;
      }
      let l = s;
      let r = e + 1;
      for (let h = 0; h <= c.timeBits && l < r; h++) {
        if (l & 1 && probe(h, words, off, l++)) return true;
        if (r & 1 && probe(h, words, off, --r)) return true;
        l >>>= 1;
        r >>>= 1;
      }
      return false;
    },
  };
}
