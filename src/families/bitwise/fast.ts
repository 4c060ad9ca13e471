/**
 * The compiled software bitwise Bloom filter (the software side of `bench`): the reference
 * model's operations (./model.ts) generated for one config as a WebAssembly module, equal to the
 * model answer for answer and counter for counter (tested). The keys are placed in the module's
 * memory once (`keySpace`); an op takes a key's index.
 *
 * Memory: the combined H3 tables, the counters, the keys.
 * - Tables: H3 is linear over GF(2), so the index of every bank of every level is the XOR of
 *   one table row per 4-bit chunk of the key; a row holds all banks' contributions, packed into
 *   32-bit words (first fit) and padded to whole 128-bit vectors, so a chunk costs one `v128`
 *   load and XOR per 4 words. Nibbles, not bytes: 16 rows per chunk keep the tables at a few KB
 *   (byte tables are 16× larger and pushed the counters out of the L1 cache; measured no faster).
 * - Counters: each level's in the narrowest unsigned element that holds its width.
 * - The add (the first level whose minimum is below its maximum is incremented, saturating per
 *   counter, and the full levels below it are zeroed; all full: dropped) branches per level, and
 *   writes only the levels it changes. A branch-free form that computes the level as 0/1 values
 *   and writes every counter was slower: an op is bound by instructions, and most adds stop at
 *   the first level.
 * A minimum is a `select` (a conditional move). Counts are exact while Σ w_i ≤ 53 (f64 sums of the
 * levels' minima when the count may not fit 31 bits); `compileBitwise` returns null otherwise.
 *
 * Phases: `layoutOf` (the banks, their packed index words, the byte offsets), `emitModule` (the
 * three functions' code, from `emitLoadKey`, `emitAdd` and `emitCount`), `fillTables` (the H3
 * tables written into the instance's memory).
 */
import { h3Matrix } from '../../ir/h3.js';
import { section, sleb, str, uleb, WASM_HEADER } from '../../util/wasmBytes.js';
import { hashSalt } from './model.js';
import type { BitwiseParams } from './types.js';

export interface FastBitwise {
  /** Room for `n` keys in the module's memory, as 32-bit words: key i at [i·keyWords, (i+1)·keyWords). */
  keySpace(n: number): Uint32Array;
  /** The count of key i. */
  count(i: number): number;
  /** Adds key i; false when the add was dropped (every level at its maximum). */
  insert(i: number): boolean;
  /** The count of key i before the add, then the add. */
  testAndInsert(i: number): number;
  clear(): void;
  /** Every bank's counters, flat (bank j of level i from `bankBase[i][j]`): a copy. */
  counters(): Uint8Array | Uint16Array | Uint32Array;
  readonly bankBase: number[][];
  readonly keyWords: number;
}

const I32 = 0x7f;
const F64 = 0x7c;
const V128 = 0x7b;
const VOID = 0x40;
const OP = {
  block: 0x02,
  if: 0x04,
  end: 0x0b,
  br: 0x0c,
  select: 0x1b,
  get: 0x20,
  set: 0x21,
  load: 0x28,
  load8: 0x2d,
  load16: 0x2f,
  store: 0x36,
  store8: 0x3a,
  store16: 0x3b,
  const: 0x41,
  f64const: 0x44,
  ne: 0x47,
  ltU: 0x49,
  add: 0x6a,
  mul: 0x6c,
  and: 0x71,
  shl: 0x74,
  shrU: 0x76,
  f64add: 0xa0,
  f64mul: 0xa2,
  f64fromU32: 0xb8,
} as const;
/** SIMD (0xfd-prefixed): v128.load, v128.xor, i32x4.extract_lane. */
const SIMD = { load: [0xfd, 0x00], xor: [0xfd, 0x51], extract: [0xfd, 0x1b] } as const;
/** Load, store and alignment (log2 bytes) of a counter element of 1, 2 or 4 bytes. */
const ELEM = {
  1: { ld: OP.load8, st: OP.store8, align: 0 },
  2: { ld: OP.load16, st: OP.store16, align: 1 },
  4: { ld: OP.load, st: OP.store, align: 2 },
} as const;
/** Key bits per table chunk. */
const CHUNK = 4;

/** One function's body: locals after the parameter (the key index). */
class Body {
  readonly code: number[] = [];
  private readonly types: number[] = [];
  local(type: number = I32): number {
    this.types.push(type);
    return this.types.length;
  }
  op(...b: number[]): this {
    for (const x of b) this.code.push(x);
    return this;
  }
  get(l: number): this {
    return this.op(OP.get, ...uleb(l));
  }
  set(l: number): this {
    return this.op(OP.set, ...uleb(l));
  }
  k(c: number): this {
    return this.op(OP.const, ...sleb(c));
  }
  bytes(): number[] {
    const runs: [number, number][] = [];
    for (const t of this.types) {
      const last = runs.at(-1);
      if (last && last[1] === t) last[0]++;
      else runs.push([1, t]);
    }
    const b = [...uleb(runs.length), ...runs.flatMap(([n, t]) => [...uleb(n), t]), ...this.code, OP.end];
    return [...uleb(b.length), ...b];
  }
}

function parity(x: number): number {
  let n = 0;
  for (let v = x; v !== 0; v &= v - 1) n ^= 1;
  return n;
}

/** Where everything is: the banks, their packed index words, and the memory's byte offsets. */
interface Layout {
  p: BitwiseParams;
  levels: BitwiseParams['levels'];
  keyWords: number;
  /** Banks in level order; bank v's counters at flat index base (the model's layout). */
  banks: { level: number; bank: number; base: number }[];
  bankBase: number[][];
  /** Counters in all banks. */
  total: number;
  /** The banks of level i. */
  ofLevel(i: number): number[];
  /** Bank v's index: bits [shift[v], shift[v] + indexBits) of packed word word[v] (first fit). */
  word: number[];
  shift: number[];
  /** Bits used of each packed word. */
  used: number[];
  /** 128-bit vectors per table row, and 32-bit words per row (4·Q). */
  Q: number;
  stride: number;
  /** Table chunks of the key, and rows per chunk (2^CHUNK). */
  chunks: number;
  E: number;
  /** Bytes per counter element of each level. */
  elem: (1 | 2 | 4)[];
  /** Byte offsets: each bank's counters (the first at countersAt), then the keys. */
  bankAt: number[];
  countersAt: number;
  keysAt: number;
  /** The count may not fit 31 bits: summed in f64. */
  f64Count: boolean;
}

/** The layout of a config, or null when a count would not be an exact double (Σ w_i > 53). */
function layoutOf(p: BitwiseParams): Layout | null {
  const levels = p.levels;
  const countBits = levels.reduce((s, L) => s + L.width, 0);
  if (countBits > 53) return null;
  const keyWords = Math.ceil(p.keyBits / 32);
  const banks: Layout['banks'] = [];
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
  const ofLevel = (i: number): number[] => banks.flatMap((b, v) => (b.level === i ? [v] : []));
  const word: number[] = [];
  const shift: number[] = [];
  const used: number[] = [];
  for (const b of banks) {
    const bits = levels[b.level]!.indexBits;
    let w = used.findIndex((u) => u + bits <= 32);
    if (w < 0) w = used.push(0) - 1;
    word.push(w);
    shift.push(used[w]!);
    used[w] = used[w]! + bits;
  }
  const Q = Math.ceil(used.length / 4);
  const stride = 4 * Q;
  const chunks = Math.ceil(p.keyBits / CHUNK);
  const E = 2 ** CHUNK;
  // Byte offsets: tables, then each bank's counters, then the keys.
  const elem = levels.map((L) => (L.width <= 8 ? 1 : L.width <= 16 ? 2 : 4) as 1 | 2 | 4);
  const bankAt: number[] = [];
  let at = chunks * E * stride * 4;
  const countersAt = at;
  for (const b of banks) {
    bankAt.push(at);
    at = Math.ceil((at + levels[b.level]!.bankCells * elem[b.level]!) / 4) * 4;
  }
  const keysAt = Math.ceil(at / 16) * 16;
  const f64Count = countBits > 31;
  return {
    p,
    levels,
    keyWords,
    banks,
    bankBase,
    total,
    ofLevel,
    word,
    shift,
    used,
    Q,
    stride,
    chunks,
    E,
    elem,
    bankAt,
    countersAt,
    keysAt,
    f64Count,
  };
}

/** Key i's words loaded, then XORed table rows per chunk: the locals of the packed index words. */
function emitHash(b: Body, L: Layout): number[] {
  const { keyWords, Q, chunks, E, stride } = L;
  const kw = Array.from({ length: keyWords }, () => b.local());
  const base = b.local();
  b.get(0)
    .k(keyWords * 4)
    .op(OP.mul)
    .set(base);
  kw.forEach((l, i) =>
    b
      .get(base)
      .op(OP.load, 2, ...uleb(L.keysAt + 4 * i))
      .set(l),
  );
  const acc = Array.from({ length: Q }, () => b.local(V128));
  const x = b.local();
  const perWord = 32 / CHUNK;
  for (let ch = 0; ch < chunks; ch++) {
    // Row (ch, value) at (ch·E + value)·stride·4.
    b.get(kw[Math.floor(ch / perWord)]!);
    if (ch % perWord !== 0) b.k((ch % perWord) * CHUNK).op(OP.shrU);
    b.k(E - 1)
      .op(OP.and)
      .k(stride * 4)
      .op(OP.mul)
      .set(x);
    for (let q = 0; q < Q; q++) {
      if (ch > 0) b.get(acc[q]!);
      b.get(x).op(...SIMD.load, 4, ...uleb(ch * E * stride * 4 + q * 16));
      if (ch > 0) b.op(...SIMD.xor);
      b.set(acc[q]!);
    }
  }
  return L.used.map((_, w) => {
    const l = b.local();
    b.get(acc[w >> 2]!)
      .op(...SIMD.extract, w & 3)
      .set(l);
    return l;
  });
}

interface Loaded {
  addr: number[];
  c: number[];
  m: number[];
}

/** Key i's counters (c), their byte offsets in their banks (addr) and each level's minimum (m). */
function emitLoadKey(b: Body, L: Layout): Loaded {
  const { levels, banks, elem } = L;
  const a = emitHash(b, L);
  const addr = banks.map(() => b.local());
  const c = banks.map(() => b.local());
  banks.forEach((bk, v) => {
    const bits = levels[bk.level]!.indexBits;
    const e = elem[bk.level]!;
    const sh = L.shift[v]!;
    b.get(a[L.word[v]!]!);
    if (sh !== 0) b.k(sh).op(OP.shrU);
    if (sh + bits < 32) b.k(2 ** bits - 1).op(OP.and);
    if (e > 1) b.k(Math.log2(e)).op(OP.shl);
    b.set(addr[v]!);
    b.get(addr[v]!)
      .op(ELEM[e].ld, ELEM[e].align, ...uleb(L.bankAt[v]!))
      .set(c[v]!);
  });
  const m = levels.map((_, i) => {
    const vs = L.ofLevel(i);
    const l = b.local();
    b.get(c[vs[0]!]!).set(l);
    // l = c < l ? c : l
    for (const v of vs.slice(1)) b.get(c[v]!).get(l).get(c[v]!).get(l).op(OP.ltU, OP.select).set(l);
    return l;
  });
  return { addr, c, m };
}

/** Pushes Σ m_i · 2^offset_i (i32, or f64 when the count may not fit 31 bits). */
function emitCount(b: Body, L: Layout, m: number[]): void {
  L.levels.forEach((lv, i) => {
    b.get(m[i]!);
    if (L.f64Count) {
      b.op(OP.f64fromU32);
      if (lv.offset !== 0) b.op(OP.f64const, ...new Uint8Array(new Float64Array([2 ** lv.offset]).buffer), OP.f64mul);
      if (i > 0) b.op(OP.f64add);
    } else {
      if (lv.offset !== 0) b.k(lv.offset).op(OP.shl);
      if (i > 0) b.op(OP.add);
    }
  });
}

/** The add (see the header); local `added` ends 1 (added) or 0 (dropped). */
function emitAdd(b: Body, L: Layout, k: Loaded, added: number): void {
  const { elem, bankAt } = L;
  b.k(0).set(added);
  b.op(OP.block, VOID);
  L.levels.forEach((lv, i) => {
    b.get(k.m[i]!).k(lv.max).op(OP.ne, OP.if, VOID);
    for (let j = 0; j < i; j++)
      for (const v of L.ofLevel(j))
        b.get(k.addr[v]!)
          .k(0)
          .op(ELEM[elem[j]!].st, ELEM[elem[j]!].align, ...uleb(bankAt[v]!));
    // c + (c < max): saturating.
    for (const v of L.ofLevel(i))
      b.get(k.addr[v]!)
        .get(k.c[v]!)
        .get(k.c[v]!)
        .k(lv.max)
        .op(OP.ltU, OP.add, ELEM[elem[i]!].st, ELEM[elem[i]!].align, ...uleb(bankAt[v]!));
    b.k(1).set(added).op(OP.br, 1, OP.end);
  });
  b.op(OP.end);
}

/** Memory pages for the tables, the counters and n keys. */
const pagesFor = (L: Layout, n: number): number => Math.ceil((L.keysAt + n * L.keyWords * 4) / 65536);

/** The module: count, insert and testAndInsert over the imported memory. */
function emitModule(L: Layout): Uint8Array<ArrayBuffer> {
  const count = new Body();
  emitCount(count, L, emitLoadKey(count, L).m);
  const insert = new Body();
  {
    const added = insert.local();
    emitAdd(insert, L, emitLoadKey(insert, L), added);
    insert.get(added);
  }
  const tai = new Body();
  {
    const k = emitLoadKey(tai, L);
    const added = tai.local();
    emitAdd(tai, L, k, added);
    emitCount(tai, L, k.m);
  }
  const fns = [
    { name: 'count', type: 0, body: count },
    { name: 'insert', type: 1, body: insert },
    { name: 'testAndInsert', type: 0, body: tai },
  ];
  return new Uint8Array([
    ...WASM_HEADER,
    // Types: (i32) -> count (i32 or f64); (i32) -> i32.
    ...section(1, [2, 0x60, 1, I32, 1, L.f64Count ? F64 : I32, 0x60, 1, I32, 1, I32]),
    ...section(2, [1, ...str('env'), ...str('mem'), 0x02, 0x00, ...uleb(pagesFor(L, 0))]),
    ...section(3, [fns.length, ...fns.map((f) => f.type)]),
    ...section(7, [fns.length, ...fns.flatMap((f, i) => [...str(f.name), 0x00, i])]),
    ...section(10, [fns.length, ...fns.flatMap((f) => f.body.bytes())]),
  ]);
}

/** The tables: row (ch, value) XORs, for each bank, the H3 rows' bits at key bits ch·CHUNK … selected by value. */
function fillTables(memory: WebAssembly.Memory, L: Layout): void {
  const { chunks, E, stride } = L;
  const table = new Uint32Array(memory.buffer, 0, chunks * E * stride);
  L.banks.forEach((bk, v) => {
    const rows = h3Matrix(L.p.seed, hashSalt(bk.level, bk.bank), L.p.keyBits, L.levels[bk.level]!.indexBits);
    for (let ch = 0; ch < chunks; ch++) {
      const nib = rows.map((r) => Number((r >> BigInt(ch * CHUNK)) & BigInt(E - 1)));
      for (let value = 0; value < E; value++) {
        let h = 0;
        nib.forEach((n, bit) => (h |= parity(n & value) << bit));
        const e = (ch * E + value) * stride + L.word[v]!;
        table[e] = (table[e]! ^ (h << L.shift[v]!)) >>> 0;
      }
    }
  });
}

/** Every bank's counters, flat in the model's layout, in the widest level's element type. */
function readCounters(memory: WebAssembly.Memory, L: Layout): Uint8Array | Uint16Array | Uint32Array {
  const { elem, total, bankAt } = L;
  const wide = Math.max(...elem);
  const out = wide === 1 ? new Uint8Array(total) : wide === 2 ? new Uint16Array(total) : new Uint32Array(total);
  const dv = new DataView(memory.buffer);
  L.banks.forEach((bk, v) => {
    const e = elem[bk.level]!;
    for (let x = 0; x < L.levels[bk.level]!.bankCells; x++)
      out[bk.base + x] =
        e === 1
          ? dv.getUint8(bankAt[v]! + x)
          : e === 2
            ? dv.getUint16(bankAt[v]! + 2 * x, true)
            : dv.getUint32(bankAt[v]! + 4 * x, true);
  });
  return out;
}

export function compileBitwise(p: BitwiseParams): FastBitwise | null {
  const L = layoutOf(p);
  if (!L) return null;
  const { keyWords, keysAt, countersAt, f64Count } = L;
  const bytes = emitModule(L);
  const memory = new WebAssembly.Memory({ initial: pagesFor(L, 0) });
  const ex = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { mem: memory } }).exports as Record<
    string,
    (i: number) => number
  >;
  fillTables(memory, L);
  const cnt = ex.count!;
  const ins = ex.insert!;
  const tia = ex.testAndInsert!;
  return {
    keySpace(n: number): Uint32Array {
      const more = pagesFor(L, n) - memory.buffer.byteLength / 65536;
      if (more > 0) memory.grow(more);
      return new Uint32Array(memory.buffer, keysAt, n * keyWords);
    },
    count: f64Count ? cnt : (i) => cnt(i) >>> 0,
    insert: (i) => ins(i) !== 0,
    testAndInsert: f64Count ? tia : (i) => tia(i) >>> 0,
    clear: () => new Uint8Array(memory.buffer, countersAt, keysAt - countersAt).fill(0),
    counters: () => readCounters(memory, L),
    bankBase: L.bankBase,
    keyWords,
  };
}
