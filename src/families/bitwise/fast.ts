/**
 * A compiled software bitwise Bloom filter: the reference model's operations (./model.ts)
 * generated as JavaScript specialised to one config — every size a literal, the H3 byte tables of
 * every bank of every level combined into one table (H3 is linear, so one pass over the key bytes
 * yields every bank's counter index), the indexes packed into 32-bit words as many as fit (XOR is
 * bitwise, so packed tables XOR to packed indexes: fewer table reads per key byte), the counters
 * of all banks in one typed array of the narrowest element that holds the widest counter, the
 * carry decision unrolled level by level on the levels' minima (a level is full iff its minimum
 * is the maximum; an insert reads a level only when the add reaches it). No allocation per op. Counts and counters equal the reference
 * model's (tested); it exists for speed (the software side of `bench`).
 *
 * Supported while Σ w_i ≤ 53 (a count is an exact double); `compileBitwise` returns null otherwise.
 */
import { h3Matrix, h3Tables } from '../../ir/h3.js';
import { hashSalt } from './model.js';
import type { BitwiseParams } from './types.js';

export interface FastBitwise {
  /** The count of the key at keys[off..] (little-endian 32-bit words). */
  count(keys: Uint32Array, off: number): number;
  /** Adds the key; false when the add was dropped (every level at its maximum). */
  insert(keys: Uint32Array, off: number): boolean;
  /** The count before the add, then the add. */
  testAndInsert(keys: Uint32Array, off: number): number;
  clear(): void;
  /** Every bank's counters, flat: bank j of level i starts at `bankBase[i][j]`. */
  readonly counters: Uint8Array | Uint16Array | Uint32Array;
  readonly bankBase: number[][];
}

export function compileBitwise(p: BitwiseParams): FastBitwise | null {
  const levels = p.levels;
  if (levels.reduce((s, L) => s + L.width, 0) > 53) return null;
  const keyBytes = Math.ceil(p.keyBits / 8);
  const keyWords = Math.ceil(p.keyBits / 32);
  const banks: { level: number; bank: number; base: number }[] = [];
  const bankBase: number[][] = [];
  let total = 0;
  levels.forEach((L, i) => {
    bankBase.push([]);
    for (let j = 0; j < L.k; j++) {
      bankBase[i]!.push(total);
      banks.push({ level: i, bank: j, base: total });
      total += L.bankCells;
    }
  });
  // Bank v's index is bits [shift[v], shift[v] + indexBits) of packed word word[v] (first fit).
  const word: number[] = [];
  const shift: number[] = [];
  const used: number[] = [];
  banks.forEach((b) => {
    const bits = levels[b.level]!.indexBits;
    let w = used.findIndex((u) => u + bits <= 32);
    if (w < 0) w = used.push(0) - 1;
    word.push(w);
    shift.push(used[w]!);
    used[w] = used[w]! + bits;
  });
  const V = used.length;
  const comb = new Uint32Array(keyBytes * 256 * V);
  banks.forEach((b, v) => {
    const L = levels[b.level]!;
    const t = h3Tables(h3Matrix(p.seed, hashSalt(b.level, b.bank), p.keyBits, L.indexBits), p.keyBits);
    const w = word[v]!;
    for (let e = 0; e < keyBytes * 256; e++) comb[e * V + w] = (comb[e * V + w]! ^ (t[e]! << shift[v]!)) >>> 0;
  });
  const maxWidth = Math.max(...levels.map((L) => L.width));
  const counters =
    maxWidth <= 8 ? new Uint8Array(total) : maxWidth <= 16 ? new Uint16Array(total) : new Uint32Array(total);
  const lines: string[] = [];
  const e = (s: string): void => void lines.push(s);
  const ofLevel = (i: number): number[] => banks.flatMap((b, v) => (b.level === i ? [v] : []));
  // Level i's counter values c<v> and their minimum m<i> (x's count at the level, MS).
  const levelLoad = (i: number): void => {
    const vs = ofLevel(i);
    for (const v of vs) e(`const c${v} = cnt[p${v}];`);
    e(`const m${i} = ${vs.length === 1 ? `c${vs[0]}` : `Math.min(${vs.map((v) => `c${v}`).join(', ')})`};`);
  };
  // Counter positions p<v> of the key at keys[off..]; with `eager` every level's values too.
  const load = (eager: boolean): void => {
    for (let i = 0; i < keyWords; i++) e(`const k${i} = keys[off + ${i}];`);
    for (let w = 0; w < V; w++) e(`let a${w} = 0;`);
    for (let i = 0; i < keyBytes; i++) {
      e(`{ const x = (${i * 256} + ((k${i >> 2} >>> ${(i & 3) * 8}) & 255)) * ${V};`);
      for (let w = 0; w < V; w++) e(`a${w} ^= comb[x + ${w}];`);
      e('}');
    }
    banks.forEach((b, v) => {
      const bits = levels[b.level]!.indexBits;
      const a = `a${word[v]}`;
      const idx =
        bits === 32
          ? `(${a} >>> 0)`
          : shift[v] === 0
            ? `(${a} & ${2 ** bits - 1})`
            : `((${a} >>> ${shift[v]}) & ${2 ** bits - 1})`;
      e(`const p${v} = ${b.base} + ${idx};`);
    });
    if (eager) levels.forEach((_, i) => levelLoad(i));
  };
  const countExpr = (): string =>
    levels.map((L, i) => (L.offset === 0 ? `m${i}` : `m${i} * ${2 ** L.offset}`)).join(' + ');
  // The add, level by level: the first level i whose minimum is below the maximum is incremented
  // (saturating per counter) and every level below it — all its counters at the maximum — zeroed
  // (the carry); with every level at its maximum the add is dropped. Lazy: a level's counters are
  // read only when the add reaches it (all are read already when `loaded`).
  const addCode = (loaded: boolean): void => {
    levels.forEach((L, i) => {
      if (!loaded) levelLoad(i);
      e(`if (m${i} !== ${L.max}) {`);
      for (let j = 0; j < i; j++) for (const v of ofLevel(j)) e(`  cnt[p${v}] = 0;`);
      for (const v of ofLevel(i)) e(`  if (c${v} < ${L.max}) cnt[p${v}] = c${v} + 1;`);
      e('  return ADDED;');
      e('}');
    });
    e('return DROPPED;');
  };
  const mk = (
    eager: boolean,
    body: () => void,
    added: string,
    dropped: string,
  ): ((keys: Uint32Array, off: number) => unknown) => {
    lines.length = 0;
    load(eager);
    body();
    const src = lines
      .join('\n')
      .replaceAll('return ADDED;', `return ${added};`)
      .replaceAll('return DROPPED;', `return ${dropped};`);
    return new Function('cnt', 'comb', `'use strict'; return function (keys, off) {\n${src}\n};`)(counters, comb) as (
      keys: Uint32Array,
      off: number,
    ) => unknown;
  };
  const count = mk(true, () => e(`return ${countExpr()};`), '', '');
  const insert = mk(false, () => addCode(false), 'true', 'false');
  const testAndInsert = mk(
    true,
    () => {
      e(`const before = ${countExpr()};`);
      addCode(true);
    },
    'before',
    'before',
  );
  return {
    count: count as (keys: Uint32Array, off: number) => number,
    insert: insert as (keys: Uint32Array, off: number) => boolean,
    testAndInsert: testAndInsert as (keys: Uint32Array, off: number) => number,
    clear: () => counters.fill(0),
    counters,
    bankBase,
  };
}
