/**
 * A compiled software counting/spectral filter: the reference model's operations (./model.ts)
 * generated as JavaScript specialised to one config — every size a literal, the H3 byte tables of
 * all banks combined into one table (H3 is linear, so one pass over the key bytes yields every
 * bank's hash; two banks share a 32-bit word when their hashes fit 16 bits), the counters in one
 * typed array of the narrowest element that holds them, the per-bank loops unrolled. No
 * allocation per op. Answers, flags and counters equal the reference model's (tested); it exists
 * for speed (the software side of `bench`), the model for clarity.
 */
import { h3Matrix, h3Tables } from '../../ir/h3.js';
import { primarySalt, secondarySalt } from './model.js';
import type { CountingParams } from './types.js';

/** Flags returned by insert and remove: bit 0 overflow, bit 1 underflow. */
export const FLAG_OVERFLOW = 1;
export const FLAG_UNDERFLOW = 2;

export interface FastCounting {
  /** Key as little-endian 32-bit words at keys[off..]. The estimate of the key's count. */
  query(keys: Uint32Array, off: number): number;
  /** Returns the flags (FLAG_OVERFLOW). */
  insert(keys: Uint32Array, off: number): number;
  /** The estimate as of before the insert. */
  testAndInsert(keys: Uint32Array, off: number): number;
  /** Returns the flags (FLAG_UNDERFLOW); absent for MI. */
  remove?(keys: Uint32Array, off: number): number;
  /** Every counter: primary bank i at i·cellsPerBank, then RM's secondary banks. */
  readonly counters: Uint8Array | Uint16Array | Uint32Array;
}

export function compileCounting(p: CountingParams): FastCounting {
  const k = p.k;
  const rm = p.algorithm === 'rm';
  const c1 = p.cellsPerBank;
  const c2 = p.secondaryCellsPerBank;
  const max = 2 ** p.counterBits - 1;
  const keyBytes = Math.ceil(p.keyBits / 8);
  const keyWords = Math.ceil(p.keyBits / 32);
  // Hash units: k primary, then k secondary (RM); two per word when both fit 16 bits.
  const units = [
    ...Array.from({ length: k }, (_, i) => ({ salt: primarySalt(i), bits: Math.log2(c1), base: i * c1 })),
    ...(rm
      ? Array.from({ length: k }, (_, i) => ({ salt: secondarySalt(i), bits: Math.log2(c2), base: k * c1 + i * c2 }))
      : []),
  ];
  const slots: { word: number; shift: number }[] = [];
  let word = 0;
  let used = 0;
  for (const u of units) {
    if (used > 0 && (used + u.bits > 32 || u.bits > 16 || used > 16)) {
      word++;
      used = 0;
    }
    slots.push({ word, shift: used });
    used += u.bits;
  }
  const V = word + 1;
  const comb = new Uint32Array(keyBytes * 256 * V);
  units.forEach((u, n) => {
    const t = h3Tables(h3Matrix(p.seed, u.salt, p.keyBits, u.bits), p.keyBits);
    const { word: wd, shift } = slots[n]!;
    for (let e = 0; e < keyBytes * 256; e++) comb[e * V + wd] = (comb[e * V + wd]! ^ (t[e]! << shift)) >>> 0;
  });
  const total = k * c1 + (rm ? k * c2 : 0);
  const counters =
    p.counterBits <= 8 ? new Uint8Array(total) : p.counterBits <= 16 ? new Uint16Array(total) : new Uint32Array(total);

  const lines: string[] = [];
  const e = (s: string): void => void lines.push(s);
  /** j<n> = the counter index of unit n. */
  const hashCode = (): void => {
    for (let i = 0; i < keyWords; i++) e(`const k${i} = keys[off + ${i}];`);
    for (let v = 0; v < V; v++) e(`let a${v} = 0;`);
    for (let i = 0; i < keyBytes; i++) {
      e(`{ const x = (${i * 256} + ((k${i >> 2} >>> ${(i & 3) * 8}) & 255)) * ${V};`);
      for (let v = 0; v < V; v++) e(`a${v} ^= comb[x + ${v}];`);
      e('}');
    }
    units.forEach((u, n) => {
      const { word: wd, shift } = slots[n]!;
      const mask = (2 ** u.bits - 1) >>> 0;
      e(`const j${n} = ${u.base} + ((a${wd} >>> ${shift}) & ${mask});`);
    });
  };
  const P = Array.from({ length: k }, (_, i) => i); // primary units
  const S = rm ? Array.from({ length: k }, (_, i) => k + i) : []; // secondary units
  /** min<tag> and (with holders) how many of the units hold it. */
  const minCode = (tag: string, ns: number[], holders: boolean): void => {
    ns.forEach((n) => e(`const ${tag}v${n} = C[j${n}];`));
    e(`let ${tag} = ${tag}v${ns[0]};`);
    ns.slice(1).forEach((n) => e(`if (${tag}v${n} < ${tag}) ${tag} = ${tag}v${n};`));
    if (holders) e(`const ${tag}n = ${ns.map((n) => `(${tag}v${n} === ${tag} ? 1 : 0)`).join(' + ')};`);
  };
  const estimateCode = (): void => {
    minCode('m1', P, rm);
    if (!rm) return e('const est = m1;');
    minCode('m2', S, false);
    e('const est = m1n > 1 ? m1 : m2 > 0 ? m2 : m1;');
  };
  const incrementCode = (): void => {
    e('let fl = 0;');
    if (p.algorithm === 'mi') {
      minCode('mi', P, false);
      P.forEach((n) => e(`if (miv${n} === mi) { if (mi === ${max}) fl = ${FLAG_OVERFLOW}; else C[j${n}] = mi + 1; }`));
      return;
    }
    P.forEach((n) => e(`{ const v = C[j${n}]; if (v === ${max}) fl = ${FLAG_OVERFLOW}; else C[j${n}] = v + 1; }`));
    if (!rm) return;
    minCode('n1', P, true);
    e('if (n1n === 1) {');
    minCode('s2', S, false);
    e('  const add = s2 > 0 ? 1 : n1;');
    S.forEach((n) =>
      e(
        `  { const v = s2v${n} + add; if (v > ${max}) { fl = ${FLAG_OVERFLOW}; C[j${n}] = ${max}; } else C[j${n}] = v; }`,
      ),
    );
    e('}');
  };
  const decrementCode = (): void => {
    e('let fl = 0;');
    P.forEach((n) => e(`{ const v = C[j${n}]; if (v === 0) fl = ${FLAG_UNDERFLOW}; else C[j${n}] = v - 1; }`));
    if (!rm) return;
    minCode('n1', P, true);
    e('if (n1n === 1) {');
    minCode('s2', S, false);
    e('  if (s2 > 0) {');
    S.forEach((n) => e(`    C[j${n}] = s2v${n} - 1;`));
    e('  }');
    e('}');
  };
  const fn = (...parts: (() => void)[]): string => {
    lines.length = 0;
    hashCode();
    for (const part of parts) part();
    return lines.join('\n');
  };
  const mk = (src: string): ((keys: Uint32Array, off: number) => number) =>
    new Function('C', 'comb', `'use strict'; return function (keys, off) {\n${src}\n};`)(counters, comb) as (
      keys: Uint32Array,
      off: number,
    ) => number;
  const ret = (x: string) => (): void => e(`return ${x};`);
  const out: FastCounting = {
    query: mk(fn(estimateCode, ret('est'))),
    insert: mk(fn(incrementCode, ret('fl'))),
    testAndInsert: mk(fn(estimateCode, incrementCode, ret('est'))),
    counters,
  };
  if (p.remove) out.remove = mk(fn(decrementCode, ret('fl')));
  return out;
}
