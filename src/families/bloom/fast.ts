/**
 * A compiled software filter for one config: the reference model's operations (./model.ts)
 * generated as JavaScript with every size a literal, the H3 byte tables of all hash units
 * combined into one table (H3 is linear, so one pass over the key bytes yields every hash; units
 * of at most 16 bits share a 32-bit word), the hash values in locals, every probe's bit position
 * an expression. No allocation per op. Answers and bit arrays equal the model's (tested); it is
 * the software side of `bench`.
 */
import { h3Matrix, h3Tables } from '../../ir/h3.js';
import { bloomLayout, hashSalt, H3_UNIT_BITS } from './model.js';
import type { BloomParams } from './types.js';

export interface FastBloom {
  /** Key as little-endian 32-bit words at keys[off..]. */
  testAndInsert(keys: Uint32Array, off: number): boolean;
  query(keys: Uint32Array, off: number): boolean;
  insert(keys: Uint32Array, off: number): void;
  clear(): void;
  /** The columns' bits, flat, in the model's layout (column c at word c·colWords). */
  readonly bits: Uint32Array;
}

export function compileBloom(p: BloomParams): FastBloom {
  const L = bloomLayout(p);
  const keyBytes = Math.ceil(p.keyBits / 8);
  const keyWords = Math.ceil(p.keyBits / 32);
  const unitBits = Array.from({ length: L.hashUnits }, (_, u) => Math.min(H3_UNIT_BITS, L.hashBits - 32 * u));
  // Pack every (hash, unit) into 32-bit accumulator words: units of at most 16 bits two to a word.
  const slots: { word: number; shift: number; bits: number }[] = [];
  let word = 0;
  let used = 0;
  for (let h = 0; h < L.hashes; h++)
    for (let u = 0; u < L.hashUnits; u++) {
      const bits = unitBits[u]!;
      if (used > 0 && (used + bits > 32 || bits > 16 || used > 16)) {
        word++;
        used = 0;
      }
      slots.push({ word, shift: used, bits });
      used += bits;
    }
  const V = word + 1;
  const comb = new Uint32Array(keyBytes * 256 * V);
  slots.forEach((s, i) => {
    const h = Math.floor(i / L.hashUnits);
    const u = i % L.hashUnits;
    const t = h3Tables(h3Matrix(p.seed, hashSalt(h, u), p.keyBits, s.bits), p.keyBits);
    for (let e = 0; e < keyBytes * 256; e++) comb[e * V + s.word] = (comb[e * V + s.word]! ^ (t[e]! << s.shift)) >>> 0;
  });
  const colWords = Math.ceil(L.columnBits / 32);
  const bits = new Uint32Array(L.columns * colWords);

  const lines: string[] = [];
  const e = (s: string): void => void lines.push(s);
  const hashCode = (): void => {
    for (let i = 0; i < keyWords; i++) e(`const k${i} = keys[off + ${i}];`);
    for (let v = 0; v < V; v++) e(`let a${v} = 0;`);
    for (let i = 0; i < keyBytes; i++) {
      e(`{ const x = (${i * 256} + ((k${i >> 2} >>> ${(i & 3) * 8}) & 255)) * ${V};`);
      for (let v = 0; v < V; v++) e(`a${v} ^= comb[x + ${v}];`);
      e('}');
    }
    slots.forEach((s, i) => {
      const name = `h${Math.floor(i / L.hashUnits)}_${i % L.hashUnits}`;
      e(
        s.bits === 32
          ? `const ${name} = a${s.word} >>> 0;`
          : `const ${name} = (a${s.word} >>> ${s.shift}) & ${(2 ** s.bits - 1) >>> 0};`,
      );
    });
    for (let probe = 0; probe < L.probes; probe++) {
      const col = p.filter === 'basic' ? 0 : probe;
      const index =
        p.filter === 'blocked'
          ? L.offsetBits === 0
            ? field(0, p.k * L.offsetBits, L.blockIndexBits)
            : `((${field(0, p.k * L.offsetBits, L.blockIndexBits)} << ${L.offsetBits}) | ${field(0, probe * L.offsetBits, L.offsetBits)})`
          : field(probe, 0, L.indexBits);
      e(`const x${probe} = ${col * colWords * 32} + ${index};`);
    }
  };
  /** Bits [lo, lo + len) of hash function h (len <= 30), as an expression. */
  function field(h: number, lo: number, len: number): string {
    if (len === 0) return '0';
    const q = lo >>> 5;
    const r = lo & 31;
    const mask = (2 ** len - 1) >>> 0;
    if (r + len <= 32) return `((h${h}_${q} >>> ${r}) & ${mask})`;
    return `(((h${h}_${q} >>> ${r}) | (h${h}_${q + 1} << ${32 - r})) & ${mask})`;
  }
  const test = (i: number): string => `((bits[x${i} >>> 5] >>> (x${i} & 31)) & 1) !== 0`;
  const all = Array.from({ length: L.probes }, (_, i) => test(i)).join(' && ');
  const set = (): void => {
    for (let i = 0; i < L.probes; i++) e(`bits[x${i} >>> 5] |= 1 << (x${i} & 31);`);
  };
  const fn = (body: () => void): string => {
    lines.length = 0;
    hashCode();
    body();
    return lines.join('\n');
  };
  const mk = (src: string): ((keys: Uint32Array, off: number) => unknown) =>
    new Function('bits', 'comb', `'use strict'; return function (keys, off) {\n${src}\n};`)(bits, comb) as (
      keys: Uint32Array,
      off: number,
    ) => unknown;
  const query = mk(fn(() => e(`return ${all};`)));
  const insert = mk(fn(set));
  const tai = mk(
    fn(() => {
      e(`const hit = ${all};`);
      set();
      e('return hit;');
    }),
  );
  return {
    query: query as (keys: Uint32Array, off: number) => boolean,
    insert: insert as (keys: Uint32Array, off: number) => void,
    testAndInsert: tai as (keys: Uint32Array, off: number) => boolean,
    clear: () => bits.fill(0),
    bits,
  };
}
