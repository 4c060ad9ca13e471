/**
 * A compiled software GBF (partitioned layout): the reference model's operations (model.ts)
 * generated as JavaScript specialised to one config — every size a literal, the H3 byte tables of
 * all K + 1 hash units (the K banks and the role hash) combined into one table (H3 is linear, so
 * one pass over the key bytes yields every hash), the banks as bitsets, the roles as a table of
 * ρ → reset flags, no allocation per op. Answers, counts and cells equal the reference model's
 * (tested); it exists for speed (the software side of `bench`), the model for clarity.
 */
import { h3Matrix, h3Tables } from '../../ir/h3.js';
import { GBF_ROLE_SALT, gbfSalt, resetsAt, ROLE_HASH_BITS } from './model.js';
import type { GbfParams } from './types.js';

export interface FastGbf {
  /** Key as little-endian 32-bit words at keys[off..]; `counts` gets [c0, c1] of a query. */
  testAndInsert(keys: Uint32Array, off: number): boolean;
  query(keys: Uint32Array, off: number): boolean;
  insert(keys: Uint32Array, off: number): void;
  /** Bank j's cells at words j·colWords .., cell i at bit i % 32 of word ⌊i/32⌋. */
  readonly bits: Uint32Array;
  readonly colWords: number;
  /** [c0, c1] of the last query. */
  readonly counts: Int32Array;
}

export function compileGbf(p: GbfParams): FastGbf {
  if (p.layout !== 'partitioned') throw new Error('compileGbf: the partitioned layout only');
  const K = p.k0 + p.k1;
  const perBank = p.m / K;
  const hb = Math.ceil(Math.log2(perBank));
  if (!Number.isInteger(Math.log2(perBank))) throw new Error('compileGbf: cells per bank must be a power of two');
  const keyBytes = Math.ceil(p.keyBits / 8);
  const keyWords = Math.ceil(p.keyBits / 32);
  // Units: banks 0..K−1 (hb bits) and the role hash (16 bits); two per 32-bit word when they fit.
  const units = K + 1;
  const bitsOf = (u: number): number => (u < K ? Math.max(1, hb) : ROLE_HASH_BITS);
  const perWord = hb <= 16 ? 2 : 1;
  const V = Math.ceil(units / perWord);
  const comb = new Uint32Array(keyBytes * 256 * V);
  for (let u = 0; u < units; u++) {
    const t = h3Tables(h3Matrix(p.seed, u < K ? gbfSalt(u) : GBF_ROLE_SALT, p.keyBits, bitsOf(u)), p.keyBits);
    const word = Math.floor(u / perWord);
    const shift = (u % perWord) * 16;
    for (let e = 0; e < keyBytes * 256; e++) comb[e * V + word] = (comb[e * V + word]! ^ (t[e]! << shift)) >>> 0;
  }
  const colWords = Math.ceil(perBank / 32);
  const bits = new Uint32Array(K * colWords);
  const counts = new Int32Array(2);
  // resets[ρ·K + j] = 1 when bank j resets for rotation ρ.
  const resets = new Uint8Array(K * K);
  for (let rho = 0; rho < K; rho++) for (let j = 0; j < K; j++) resets[rho * K + j] = resetsAt(j, rho, p.k0, K) ? 1 : 0;
  const lines: string[] = [];
  const e = (s: string): void => {
    lines.push(s);
  };
  const hashCode = (): void => {
    for (let i = 0; i < keyWords; i++) e(`const k${i} = keys[off + ${i}];`);
    for (let v = 0; v < V; v++) e(`let a${v} = 0;`);
    for (let i = 0; i < keyBytes; i++) {
      e(`{ const x = (${i * 256} + ((k${i >> 2} >>> ${(i & 3) * 8}) & 255)) * ${V};`);
      for (let v = 0; v < V; v++) e(`a${v} ^= comb[x + ${v}];`);
      e('}');
    }
    for (let u = 0; u < units; u++) {
      const w = Math.floor(u / perWord);
      const sh = (u % perWord) * 16;
      const b = bitsOf(u);
      e(b === 32 ? `const h${u} = a${w} >>> 0;` : `const h${u} = (a${w} >>> ${sh}) & ${(2 ** b - 1) >>> 0};`);
    }
    // ρ = ⌊v·K/2^16⌋ (exact in doubles).
    e(`const rb = Math.floor((h${K} * ${K}) / ${2 ** ROLE_HASH_BITS}) * ${K};`);
  };
  const cell = (j: number): string => `((bits[${j * colWords} + (h${j} >>> 5)] >>> (h${j} & 31)) & 1)`;
  const queryCode = (): void => {
    e('let c0 = 0;');
    e('let c1 = 0;');
    for (let j = 0; j < K; j++) e(`if (resets[rb + ${j}]) c0 += 1 - ${cell(j)}; else c1 += ${cell(j)};`);
    e('counts[0] = c0;');
    e('counts[1] = c1;');
    e(`const hit = c0 === ${p.k0} && c1 === ${p.k1};`);
  };
  const insertCode = (): void => {
    for (let j = 0; j < K; j++) {
      const at = `${j * colWords} + (h${j} >>> 5)`;
      e(`if (resets[rb + ${j}]) bits[${at}] &= ~(1 << (h${j} & 31)); else bits[${at}] |= 1 << (h${j} & 31);`);
    }
  };
  const fn = (body: () => void, ret: string): string => {
    lines.length = 0;
    hashCode();
    body();
    e(ret);
    return lines.join('\n');
  };
  const mk = (src: string): ((keys: Uint32Array, off: number) => unknown) =>
    new Function('bits', 'comb', 'resets', 'counts', `'use strict'; return function (keys, off) {\n${src}\n};`)(
      bits,
      comb,
      resets,
      counts,
    ) as (keys: Uint32Array, off: number) => unknown;
  const tai = mk(
    fn(() => {
      queryCode();
      insertCode();
    }, 'return hit;'),
  );
  const query = mk(fn(queryCode, 'return hit;'));
  const insert = mk(fn(insertCode, 'return undefined;'));
  return {
    testAndInsert: tai as (keys: Uint32Array, off: number) => boolean,
    query: query as (keys: Uint32Array, off: number) => boolean,
    insert: insert as (keys: Uint32Array, off: number) => void,
    bits,
    colWords,
    counts,
  };
}
