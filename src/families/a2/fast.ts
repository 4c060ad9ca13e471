/**
 * A compiled software A² filter: the reference model's operations (./model.ts) generated as
 * JavaScript specialised to one config — every size a literal, the k H3 byte tables combined into
 * one table (H3 is linear: one pass over the key bytes yields every hash), the bank bitsets of the
 * three sets in one typed array. No allocation per op. Answers, bit arrays and roles equal the
 * reference model's (tested); it exists for speed (the software side of `bench`).
 */
import { h3Matrix, h3Tables } from '../../ir/h3.js';
import { hashSalt, indexBits, SETS } from './model.js';
import type { A2Params } from './types.js';

export interface FastA2 {
  /** Key as little-endian 32-bit words at keys[off..]. */
  testAndInsert(keys: Uint32Array, off: number): boolean;
  query(keys: Uint32Array, off: number): boolean;
  insert(keys: Uint32Array, off: number): void;
  /** Bank bitsets, flat: set s, bank u at word (s·k + u)·bankWords. */
  readonly bits: Uint32Array;
  /** [act, count, swaps]. */
  readonly state: Int32Array;
  readonly bankWords: number;
}

export function compileA2(p: A2Params): FastA2 {
  const ib = indexBits(p);
  const K = p.k;
  const keyBytes = Math.ceil(p.keyBits / 8);
  const keyWords = Math.ceil(p.keyBits / 32);
  const perWord = ib <= 16 ? 2 : 1;
  const V = Math.ceil(K / perWord);
  const comb = new Uint32Array(keyBytes * 256 * V);
  for (let u = 0; u < K; u++) {
    const t = h3Tables(h3Matrix(p.seed, hashSalt(u), p.keyBits, ib), p.keyBits);
    const word = Math.floor(u / perWord);
    const shift = (u % perWord) * 16;
    for (let e = 0; e < keyBytes * 256; e++) comb[e * V + word] = (comb[e * V + word]! ^ (t[e]! << shift)) >>> 0;
  }
  const bw = Math.ceil(p.bankBits / 32);
  const bits = new Uint32Array(SETS * K * bw);
  const state = new Int32Array(3);
  const mask = ib === 32 ? 0xffffffff : (2 ** ib - 1) >>> 0;
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
    for (let u = 0; u < K; u++) {
      const w = Math.floor(u / perWord);
      const sh = (u % perWord) * 16;
      e(`const h${u} = (a${w} >>> ${sh}) & ${mask};`);
    }
  };
  /** All k bits of the key set in the set whose first bank word is in local `base`. */
  const inSet = (base: string): string =>
    Array.from({ length: K }, (_, u) => `((bits[${base} + ${u * bw} + (h${u} >>> 5)] >>> (h${u} & 31)) & 1)`).join(
      ' & ',
    );
  const queryCode = (): void => {
    e('const act = state[0];');
    e(`const A = act * ${K * bw};`);
    e(`const S = ((act + 2) % 3) * ${K * bw};`);
    e(`const inA = (${inSet('A')}) !== 0;`);
    e(`const hit = inA || (${inSet('S')}) !== 0;`);
  };
  const insertCode = (): void => {
    e('if (!inA) {');
    for (let u = 0; u < K; u++) e(`  bits[A + ${u * bw} + (h${u} >>> 5)] |= 1 << (h${u} & 31);`);
    e(`  if (++state[1] === ${p.kappa}) {`);
    e(`    bits.fill(0, S, S + ${K * bw});`);
    e('    state[0] = (act + 1) % 3;');
    e('    state[1] = 0;');
    e('    state[2]++;');
    e('  }');
    e('}');
  };
  const fn = (body: () => void, ret: string): string => {
    lines.length = 0;
    hashCode();
    body();
    e(ret);
    return lines.join('\n');
  };
  const mk = (src: string): ((keys: Uint32Array, off: number) => unknown) =>
    new Function('bits', 'state', 'comb', `'use strict'; return function (keys, off) {\n${src}\n};`)(
      bits,
      state,
      comb,
    ) as (keys: Uint32Array, off: number) => unknown;
  const both = (): void => {
    queryCode();
    insertCode();
  };
  return {
    testAndInsert: mk(fn(both, 'return hit;')) as (keys: Uint32Array, off: number) => boolean,
    query: mk(fn(queryCode, 'return hit;')) as (keys: Uint32Array, off: number) => boolean,
    insert: mk(fn(both, 'return undefined;')) as (keys: Uint32Array, off: number) => void,
    bits,
    state,
    bankWords: bw,
  };
}
