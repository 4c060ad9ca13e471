/**
 * Compiles an IR design to JavaScript source: straight-line code over 32-bit words, no BigInt.
 *
 * Every net of width W is ceil(W/32) little-endian words with the bits above W cleared. A word
 * is held as the int32 of its bits (a word of all 32 bits is negative when bit 31 is set): V8
 * keeps int32 values unboxed in registers, while an unsigned word above 2^31 - 1 would be a
 * double. The word arrays (V, M, T, stim) are Int32Array views; only unsigned comparisons and
 * multi-word carries convert with `>>> 0`. Inside the generated functions a net is a set of `const`
 * locals (`v<net>_<word>`); state (registers, memory read data) and, for `settle`, every net
 * lives in the value array V at a fixed slot. Hash units are byte-table look-ups (H3 is linear).
 *
 * Generated functions:
 * - `settle(V, M, T, stim)`: combinational evaluation for the inputs in `stim`; stores all nets.
 * - `run(V, M, T, stim, stimBase, out, outBase, n, stats)`: n clock cycles; cycle c
 *   reads inputs at stim[stimBase + c*IW ...], writes outputs (pre-edge) at
 *   out[outBase + c*OW ...] when `out` is non-null, then applies the clock edge.
 */
import { h3Tables } from '../src/ir/h3.js';
import { combOrder, fanInCone } from '../src/ir/topo.js';
import { planLifts, type Lift, type LiftPlan } from './lift.js';
import {
  assertNever,
  cellOutput,
  combInputs,
  type ArithCell,
  type Cell,
  type CompareCell,
  type ConcatCell,
  type Design,
  type H3Cell,
  type MemoryCell,
  type MuxCell,
  type NetId,
  type ReduceCell,
  type RegCell,
  type ShiftCell,
} from '../src/ir/types.js';

export const words = (w: number): number => Math.ceil(w / 32);
/** Mask of the valid bits of word i of a W-bit value. */
export function wordMask(w: number, i: number): number {
  const bits = Math.min(32, w - 32 * i);
  return bits === 32 ? 0xffffffff : (2 ** bits - 1) >>> 0;
}
/**
 * A 32-bit word as a literal of its signed (int32) value: generated code keeps every word as an
 * int32, V8's fastest number representation (an unsigned word above 2^31 - 1 would be a double).
 */
const hex = (x: number): string => {
  const s = x | 0;
  return s < 0 ? `(${s})` : `0x${s.toString(16)}`;
};
/** Word i of a W-bit value uses all 32 bits (it can be negative as an int32). */
const fullWord = (w: number, i: number): boolean => wordMask(w, i) === 0xffffffff;
/** Longest expression substituted into its use; longer ones get a local. */
const MAX_INLINE = 240;

export interface Layout {
  /** Slot of word 0 of each net in V. */
  offset: Int32Array;
  size: number;
  inputOffsets: number[]; // word offset of each input in one stimulus row
  inputWords: number; // words per stimulus row
  outputOffsets: number[];
  outputWords: number;
  memories: MemoryCell[];
  tables: Uint32Array[];
}

export function layoutOf(d: Design): Layout {
  const offset = new Int32Array(d.nets.length);
  let size = 0;
  for (const n of d.nets) {
    offset[n.id] = size;
    size += words(n.width);
  }
  const rows = (ports: Design['inputs']): [number[], number] => {
    const offs: number[] = [];
    let k = 0;
    for (const p of ports) {
      offs.push(k);
      k += words(d.nets[p.net]!.width);
    }
    return [offs, k];
  };
  const [inputOffsets, inputWords] = rows(d.inputs);
  const [outputOffsets, outputWords] = rows(d.outputs);
  const memories = d.cells.filter((c): c is MemoryCell => c.kind === 'memory');
  const tables = d.cells.flatMap((c) => (c.kind === 'h3' ? [h3Tables(c.rows, d.nets[c.key]!.width)] : []));
  return { offset, size, inputOffsets, inputWords, outputOffsets, outputWords, memories, tables };
}

/** Where a net word defined in chunk mode lives for the other chunks. */
interface ChunkPlan {
  /** Net words substituted at their single use. */
  inline: ReadonlySet<string>;
  /** Net words stored to V after their definition because another chunk reads them. */
  liveOut: ReadonlySet<string>;
}

class Gen {
  /** The statements being generated (a chunk's body in chunk mode). */
  out: string[] = [];
  /** Characters emitted into `out`. */
  chars = 0;
  private tmp = 0;
  /**
   * Chunk mode (`run` split into functions): the chunk being generated, or -1. A chunk reads
   * what it does not define from V (state, other chunks' values) or the stimulus row (inputs),
   * once each, in its header.
   */
  chunk = -1;
  header: string[] = [];
  private local = new Set<string>();
  /** Chunk mode: the chunk defining each net word, and the chunks reading it. */
  readonly defChunk = new Map<string, number>();
  readonly useChunks = new Map<string, Set<number>>();
  private readonly inputAt = new Map<NetId, number>();
  /** True while generating `run`: state in loop-carried locals instead of V. */
  loopState = false;
  /** Where read-during-write collisions are counted (a local of `run`'s loop when it has one). */
  collisions = 'stats[0]';
  /** True while generating code that must see materialised locals (outputs, clock edge). */
  pinning = false;
  /** Textual references to each net word (`<net>_<word>`), counted while generating. */
  readonly refs = new Map<string, number>();
  /** Net words referenced from pinned code. */
  readonly pinned = new Set<string>();
  /** Expressions substituted at their use instead of a local (constants, single-use values). */
  private readonly exprs = new Map<string, string>();
  /** Cell index driving each state net (register output, memory read data). */
  private readonly drivers = new Map<NetId, number>();
  constructor(
    readonly d: Design,
    readonly L: Layout,
    /** Net words whose defining expression is substituted at its single use. */
    private readonly inline: ReadonlySet<string> = new Set(),
    /** Bake in poisoned reads on read-during-write collisions. */
    readonly poison = false,
    private readonly liveOut: ReadonlySet<string> = new Set(),
    /** Word-level lifting of bit-blasted concats (the `run` functions only; see sim/lift.ts). */
    readonly lift: LiftPlan | null = null,
  ) {
    d.inputs.forEach((p, k) => this.inputAt.set(p.net, L.inputOffsets[k]!));
    for (const [k, c] of d.cells.entries()) {
      if (c.kind === 'reg') this.drivers.set(c.out, k);
      else if (c.kind === 'memory') this.drivers.set(c.rdData, k);
    }
  }
  /** Index of the cell that drives state net n. */
  driver(n: NetId): number {
    return this.drivers.get(n) ?? -1;
  }
  w(n: NetId): number {
    return this.d.nets[n]!.width;
  }
  /** Words of net n. */
  nw(n: NetId): number {
    return words(this.w(n));
  }
  /** A reference to word i of net n: its local, or its substituted expression. */
  v(n: NetId, i: number): string {
    const key = `${n}_${i}`;
    const e = this.exprs.get(key);
    if (e !== undefined) return e;
    this.refs.set(key, (this.refs.get(key) ?? 0) + 1);
    if (this.pinning) this.pinned.add(key);
    if (this.chunk >= 0) {
      const users = this.useChunks.get(key) ?? new Set<number>();
      users.add(this.chunk);
      this.useChunks.set(key, users);
      if (!this.local.has(key)) {
        this.local.add(key);
        const at = this.inputAt.get(n);
        this.header.push(
          `const v${key} = ${at !== undefined ? `stim[ib + ${at + i}]` : `V[${this.L.offset[n]! + i}]`};`,
        );
      }
    }
    return `v${key}`;
  }
  /** Chunk mode: start generating chunk k. */
  startChunk(k: number): void {
    this.chunk = k;
    this.out = [];
    this.chars = 0;
    this.header = [];
    this.local = new Set();
  }
  fresh(): string {
    return `t${this.tmp++}`;
  }
  /**
   * `e` as a literal or identifier, evaluated here. Only such operands go into the arms of a
   * conditional: V8 collects type feedback only for code that runs, and optimised code that
   * reaches an operation it has no feedback for deoptimises. Every cycle evaluates everything.
   */
  eager(e: string): string {
    if (/^\(?(?:[A-Za-z_$][\w$]*|0x[0-9a-f]+|\d+)\)?$/.test(e)) return e;
    const t = this.fresh();
    this.emit(`const ${t} = ${e};`);
    return t;
  }
  emit(...lines: string[]): void {
    for (const s of lines) {
      this.out.push(s);
      this.chars += s.length + 1;
    }
  }
  def(n: NetId, i: number, expr: string): void {
    const key = `${n}_${i}`;
    // Substituted expressions stay short so no statement grows without bound.
    if (this.inline.has(key) && expr.length <= MAX_INLINE) {
      this.exprs.set(key, `(${expr})`);
      return;
    }
    this.emit(`const v${key} = ${expr};`);
    if (this.chunk >= 0) {
      this.local.add(key);
      this.defChunk.set(key, this.chunk);
      if (this.liveOut.has(key)) this.emit(`V[${this.L.offset[n]! + i}] = v${key};`);
    }
  }
  /** Word i of net n is the literal or plain identifier `e` at every use. */
  alias(n: NetId, i: number, e: string): void {
    this.exprs.set(`${n}_${i}`, e);
  }
  /** Expression for bits [lo, lo+len) of net n, len <= 32, as an unsigned number. */
  bits(n: NetId, lo: number, len: number): string {
    const q = lo >>> 5;
    const r = lo & 31;
    const m = len === 32 ? '' : ` & ${hex(wordMask(len, 0))}`;
    if (r + len <= 32) {
      const shifted = r === 0 ? this.v(n, q) : `(${this.v(n, q)} >>> ${r})`;
      if (r + len === 32 || (r === 0 && len >= this.w(n) - 32 * q)) return shifted;
      return `(${shifted}${m})`;
    }
    const hi = `(${this.v(n, q + 1)} << ${32 - r})`;
    return `((${this.v(n, q)} >>> ${r}) | ${hi})${m}`;
  }
}

/** Expression for the OR of lifted parts (sim/lift.ts). */
function liftExpr(g: Gen, parts: readonly Lift[]): string {
  const one = (x: Lift): string => {
    switch (x.k) {
      case 'ones':
        return hex(x.value);
      case 'bits': {
        let e = g.bits(x.src, x.lo, x.len);
        if (x.mask !== wordMask(x.len, 0)) e = `(${e} & ${hex(x.mask)})`;
        return x.at === 0 ? e : `(${e} << ${x.at})`;
      }
      case 'not':
        return `(~${liftExpr(g, x.a)} & ${hex(x.mask)})`;
      case 'bitwise':
        return `(${liftExpr(g, x.a)} ${{ and: '&', or: '|', xor: '^' }[x.op]} ${liftExpr(g, x.b)})`;
      case 'mux': {
        const sel = g.eager(g.bits(x.sel, x.selBit, 1));
        return `(${sel} ? ${g.eager(liftExpr(g, x.t))} : ${g.eager(liftExpr(g, x.f))})`;
      }
      default:
        return assertNever(x);
    }
  };
  if (parts.length === 0) return '0';
  return parts.length === 1 ? one(parts[0]!) : `(${parts.map(one).join(' | ')})`;
}

/**
 * The bits word i of a concat takes from each part overlapping it: `len` bits of `net` from bit
 * `lo`, placed at bit `at` of the word (the last part is least significant). Without the 1-bit
 * parts when `lifted` (their value comes from the lift plan, sim/lift.ts).
 */
export function concatSlices(
  d: Design,
  c: ConcatCell,
  i: number,
  lifted: boolean,
): { net: NetId; lo: number; len: number; at: number }[] {
  const w = d.nets[c.out]!.width;
  const lo = 32 * i;
  const hi = Math.min(w, lo + 32);
  const out: { net: NetId; lo: number; len: number; at: number }[] = [];
  let at = 0;
  for (let p = c.parts.length - 1; p >= 0; p--) {
    const net = c.parts[p]!;
    const width = d.nets[net]!.width;
    const s = Math.max(lo, at);
    const e = Math.min(hi, at + width);
    if (s < e && !(lifted && width === 1)) out.push({ net, lo: s - at, len: e - s, at: s - lo });
    at += width;
  }
  return out;
}

/**
 * An H3 unit as table look-ups: its table's index in layout.tables and the key bytes b whose
 * 256-word block (b * 256 ...) is XORed in. Key bytes no row selects (a partial H3 over some
 * key bits) contribute nothing and are left out.
 */
export function h3Lookups(d: Design, L: Layout, c: H3Cell): { table: number; bytes: number[] } {
  const table = d.cells.filter((x) => x.kind === 'h3').indexOf(c);
  const t = L.tables[table]!;
  const bytes: number[] = [];
  for (let b = 0; b < Math.ceil(d.nets[c.key]!.width / 8); b++)
    if (t.subarray(b * 256, b * 256 + 256).some((x) => x !== 0)) bytes.push(b);
  return { table, bytes };
}

function genComb(g: Gen, c: Cell): void {
  if (g.lift?.absorbed.has(c)) return;
  switch (c.kind) {
    case 'const':
      for (let i = 0; i < g.nw(c.out); i++) g.alias(c.out, i, hex(Number((c.value >> BigInt(32 * i)) & 0xffffffffn)));
      return;
    case 'not':
      for (let i = 0; i < g.nw(c.out); i++) g.def(c.out, i, `~${g.v(c.a, i)} & ${hex(wordMask(g.w(c.out), i))}`);
      return;
    case 'bitwise': {
      const op = { and: '&', or: '|', xor: '^' }[c.op];
      for (let i = 0; i < g.nw(c.out); i++) g.def(c.out, i, `${g.v(c.a, i)} ${op} ${g.v(c.b, i)}`);
      return;
    }
    case 'arith':
      return genArith(g, c);
    case 'compare':
      return genCompare(g, c);
    case 'shift':
      return genShift(g, c);
    case 'mux':
      return genMux(g, c);
    case 'concat':
      return genConcat(g, c);
    case 'slice': {
      const w = g.w(c.out);
      for (let i = 0; i < words(w); i++) g.def(c.out, i, g.bits(c.a, c.lo + 32 * i, Math.min(32, w - 32 * i)));
      return;
    }
    case 'reduce':
      return genReduce(g, c);
    case 'h3':
      return genH3(g, c);
    case 'reg':
    case 'memory':
      return;
    default:
      assertNever(c);
  }
}

/** Add or subtract: one word masked, or word by word with a carry (or borrow) local. */
function genArith(g: Gen, c: ArithCell): void {
  const k = g.nw(c.out);
  const w = g.w(c.out);
  const op = c.op === 'add' ? '+' : '-';
  if (k === 1) {
    g.def(
      c.out,
      0,
      w === 32
        ? `(${g.v(c.a, 0)} ${op} ${g.v(c.b, 0)}) | 0`
        : `(${g.v(c.a, 0)} ${op} ${g.v(c.b, 0)}) & ${hex(wordMask(w, 0))}`,
    );
    return;
  }
  const carry = g.fresh();
  g.emit(`let ${carry} = 0;`);
  for (let i = 0; i < k; i++) {
    const t = g.fresh();
    if (c.op === 'add') {
      g.emit(`const ${t} = (${g.v(c.a, i)} >>> 0) + (${g.v(c.b, i)} >>> 0) + ${carry};`);
      if (i < k - 1) g.emit(`${carry} = +(${t} > 0xffffffff);`);
    } else {
      g.emit(`const ${t} = (${g.v(c.a, i)} >>> 0) - (${g.v(c.b, i)} >>> 0) - ${carry};`);
      if (i < k - 1) g.emit(`${carry} = +(${t} < 0);`);
    }
    g.def(c.out, i, `${t} & ${hex(wordMask(w, i))}`);
  }
}

function genCompare(g: Gen, c: CompareCell): void {
  const k = g.nw(c.a);
  // Word-wise, without short-circuits (see Gen.eager).
  const eq = (): string =>
    k === 1
      ? `${g.v(c.a, 0)} === ${g.v(c.b, 0)}`
      : `(${Array.from({ length: k }, (_, i) => `(${g.v(c.a, i)} ^ ${g.v(c.b, i)})`).join(' | ')}) === 0`;
  // Lexicographic from the top word: lt = lt[k-1] | eq[k-1] & (lt[k-2] | eq[k-2] & ...).
  // Words of all 32 bits are compared as unsigned (`>>> 0`: V8 compares two such values as
  // unsigned 32-bit integers).
  const u = (x: string, i: number): string => (fullWord(g.w(c.a), i) ? `(${x} >>> 0)` : x);
  const order = (op: string): string => {
    if (k === 1) return `${u(g.v(c.a, 0), 0)} ${op} ${u(g.v(c.b, 0), 0)}`;
    const a = Array.from({ length: k }, (_, i) => u(g.eager(g.v(c.a, i)), i));
    const b = Array.from({ length: k }, (_, i) => u(g.eager(g.v(c.b, i)), i));
    let e = `+(${a[0]} ${op} ${b[0]})`;
    for (let i = 1; i < k; i++) e = `+(${a[i]} ${op[0]} ${b[i]}) | (+(${a[i]} === ${b[i]}) & ${e})`;
    return `(${e}) === 1`;
  };
  const op = c.op;
  const expr = (): string => {
    switch (op) {
      case 'eq':
        return eq();
      case 'ne':
        return `!(${eq()})`;
      case 'ult':
        return order('<');
      case 'ule':
        return order('<=');
      case 'ugt':
        return order('>');
      case 'uge':
        return order('>=');
      default:
        return assertNever(op);
    }
  };
  // `+(boolean)`, not `cond ? 1 : 0`: V8 compiles a conditional expression to a branch, and a
  // compare on data (a hash, a timestamp, a block RAM word) is mispredicted about half the
  // time; the boolean's number is a flag register read, no branch.
  g.def(c.out, 0, `+(${expr()})`);
}

function genShift(g: Gen, c: ShiftCell): void {
  const w = g.w(c.out);
  const ka = g.nw(c.amount);
  const amt = g.fresh();
  const high = Array.from({ length: ka - 1 }, (_, i) => g.v(c.amount, i + 1)).join(' | ');
  g.emit(
    `const ${amt} = ${ka > 1 ? `(${high}) !== 0 ? 0xffffffff : ${g.eager(`${g.v(c.amount, 0)} >>> 0`)}` : `${g.v(c.amount, 0)} >>> 0`};`,
  );
  const k = g.nw(c.out);
  if (k === 1) {
    let e: string;
    if (c.op === 'shr') e = w === 32 ? `(${g.v(c.a, 0)} >>> ${amt}) | 0` : `${g.v(c.a, 0)} >>> ${amt}`;
    else if (w === 32) e = `${g.v(c.a, 0)} << ${amt}`;
    else e = `(${g.v(c.a, 0)} << ${amt}) & ${hex(wordMask(w, 0))}`;
    g.def(c.out, 0, `${amt} >= ${w} ? 0 : ${g.eager(e)}`);
    return;
  }
  // Multi-word: go through a scratch array (rare in hot paths).
  const src = g.fresh();
  g.emit(`const ${src} = [${Array.from({ length: k }, (_, i) => g.v(c.a, i)).join(', ')}];`);
  const q = g.fresh();
  const r = g.fresh();
  g.emit(`const ${q} = ${amt} >>> 5, ${r} = ${amt} & 31;`);
  const get = (idx: string): string => `((${idx}) >= 0 && (${idx}) < ${k} ? ${src}[${idx}] : 0)`;
  for (let i = 0; i < k; i++) {
    let e: string;
    if (c.op === 'shl') {
      e = `(${get(`${i} - ${q}`)} << ${r}) | (${r} === 0 ? 0 : ${get(`${i} - ${q} - 1`)} >>> (32 - ${r}))`;
    } else {
      e = `(${get(`${i} + ${q}`)} >>> ${r}) | (${r} === 0 ? 0 : ${get(`${i} + ${q} + 1`)} << (32 - ${r}))`;
    }
    g.def(c.out, i, `${amt} >= ${w} ? 0 : ${g.eager(`(${e}) & ${hex(wordMask(w, i))}`)}`);
  }
}

function genMux(g: Gen, c: MuxCell): void {
  const sel = g.eager(g.v(c.sel, 0));
  for (let i = 0; i < g.nw(c.out); i++) {
    const t = g.eager(g.v(c.whenTrue, i));
    g.def(c.out, i, `${sel} ? ${t} : ${g.eager(g.v(c.whenFalse, i))}`);
  }
}

function genConcat(g: Gen, c: ConcatCell): void {
  const lifted = g.lift?.words.get(c);
  for (let i = 0; i < words(g.w(c.out)); i++) {
    const plan = lifted?.[i];
    const terms: string[] = plan ? [liftExpr(g, plan)] : [];
    for (const x of concatSlices(g.d, c, i, plan !== undefined && plan !== null)) {
      const b = g.bits(x.net, x.lo, x.len);
      terms.push(x.at === 0 ? b : `(${b} << ${x.at})`);
    }
    g.def(c.out, i, terms.length === 1 ? terms[0]! : terms.join(' | '));
  }
}

function genReduce(g: Gen, c: ReduceCell): void {
  const k = g.nw(c.a);
  const w = g.w(c.a);
  const ws = Array.from({ length: k }, (_, i) => g.v(c.a, i));
  if (c.op === 'and') g.def(c.out, 0, ws.map((x, i) => `+(${x} === ${hex(wordMask(w, i))})`).join(' & '));
  else if (c.op === 'or') g.def(c.out, 0, `+((${ws.join(' | ')}) !== 0)`);
  else {
    const x = g.fresh();
    g.emit(`let ${x} = ${ws.join(' ^ ')};`);
    g.emit(`${x} ^= ${x} >>> 16; ${x} ^= ${x} >>> 8; ${x} ^= ${x} >>> 4; ${x} ^= ${x} >>> 2; ${x} ^= ${x} >>> 1;`);
    g.def(c.out, 0, `${x} & 1`);
  }
}

function genH3(g: Gen, c: H3Cell): void {
  const { table, bytes } = h3Lookups(g.d, g.L, c);
  const terms = bytes.map((b) => {
    const word = g.v(c.key, b >>> 2);
    const sh = (b & 3) * 8;
    const byte = sh === 0 ? `(${word} & 255)` : `((${word} >>> ${sh}) & 255)`;
    return `T${table}[${b * 256} + ${byte}]`;
  });
  g.def(c.out, 0, terms.length ? terms.join(' ^ ') : '0');
}

/** Nets that hold state across clock edges: register outputs and memory read data. */
function stateNets(d: Design): NetId[] {
  return d.cells.flatMap((c) => (c.kind === 'reg' ? [c.out] : c.kind === 'memory' ? [c.rdData] : []));
}

/**
 * Where the state of net n, word i lives: V in `settle`; in `run` a local carried across loop
 * iterations (`s<net>_<word>`), loaded from V before the loop and stored back after it, so the
 * per-cycle code never touches V.
 */
function stateSlot(g: Gen, n: NetId, i: number): string {
  return g.loopState ? `s${n}_${i}` : `V[${g.L.offset[n]! + i}]`;
}

function genLoadState(g: Gen, keep: (n: NetId) => boolean = () => true): void {
  for (const n of stateNets(g.d)) {
    if (!keep(n)) continue;
    for (let i = 0; i < words(g.w(n)); i++) {
      // In `run` a register's slot changes only after every use in the cycle: read it directly.
      if (g.loopState && g.d.cells[g.driver(n)]?.kind === 'reg') g.alias(n, i, stateSlot(g, n, i));
      // A memory's read data slot is written at the edge, before the register updates: copy it.
      else g.emit(`const v${n}_${i} = ${stateSlot(g, n, i)};`);
    }
  }
}

function genInputs(g: Gen, base: string): void {
  g.d.inputs.forEach((p, k) => {
    for (let i = 0; i < words(g.w(p.net)); i++) g.def(p.net, i, `stim[${base} + ${g.L.inputOffsets[k]! + i}]`);
  });
}

/**
 * The memories' clock edge: each reads its old word into `rd(k, i)` when read-enabled, then
 * writes. Port values are materialised locals. When every address is in range (depth 2^width of
 * the address) the load and store run every cycle and the enables select values (see Gen.eager);
 * otherwise they sit behind `if`s.
 */
function genMemories(g: Gen, rd: (k: number, i: number) => string): void {
  g.pinning = true;
  g.L.memories.forEach((m, k) => {
    const ww = words(m.width);
    const ra = g.v(m.rdAddr, 0);
    const wa = g.v(m.wrAddr, 0);
    const re = g.v(m.rdEn, 0);
    const we = g.v(m.wrEn, 0);
    const inRange = (a: NetId): boolean => 2 ** g.w(a) === m.depth;
    const word = (a: string, i: number): string => `M${k}[${a}${ww > 1 ? ` * ${ww} + ${i}` : ''}]`;
    const undef = m.readDuringWrite === 'undefined';
    if (inRange(m.rdAddr)) {
      const coll = g.fresh();
      if (undef) g.emit(`const ${coll} = ${wa} === ${ra} ? ${re} & ${we} : 0; ${g.collisions} += ${coll};`);
      for (let i = 0; i < ww; i++) {
        let e = g.eager(word(ra, i));
        if (undef && g.poison) e = g.eager(`${e} ^ (${hex(wordMask(m.width, i))} & -${coll})`);
        g.emit(`${rd(k, i)} = ${re} ? ${e} : ${rd(k, i)};`);
      }
    } else {
      g.emit(`if (${re}) {`);
      if (undef) {
        g.emit(`  const coll = ${we} && ${wa} === ${ra};`);
        g.emit(`  if (coll) ${g.collisions}++;`);
      }
      for (let i = 0; i < ww; i++) {
        const e = word(ra, i);
        g.emit(
          undef && g.poison
            ? `  ${rd(k, i)} = coll ? ~${e} & ${hex(wordMask(m.width, i))} : ${e};`
            : `  ${rd(k, i)} = ${e};`,
        );
      }
      g.emit('}');
    }
    const merged = (i: number, old: string): string => {
      const data = g.v(m.wrData, i);
      if (m.wrMask === null) return data;
      const mk = g.v(m.wrMask, i);
      return `(${old} & ~${mk}) | (${data} & ${mk})`;
    };
    if (inRange(m.wrAddr)) {
      for (let i = 0; i < ww; i++) {
        const old = g.eager(word(wa, i));
        g.emit(`${word(wa, i)} = ${we} ? ${g.eager(merged(i, old))} : ${old};`);
      }
    } else {
      g.emit(`if (${we}) {`);
      for (let i = 0; i < ww; i++) g.emit(`  ${word(wa, i)} = ${merged(i, word(wa, i))};`);
      g.emit('}');
    }
  });
  g.pinning = false;
}

const resetWord = (r: RegCell, i: number): string => hex(Number((r.resetValue >> BigInt(32 * i)) & 0xffffffffn));

/**
 * Register next-value expression for word i of register r; without its reset when `withReset`
 * is false (the caller applies the reset).
 */
function nextValue(g: Gen, r: RegCell, i: number, withReset = true): string {
  let e = g.v(r.d, i);
  const rst = withReset ? r.rst : null;
  if (r.en === null && rst === null) return e;
  e = g.eager(e);
  if (r.en !== null) e = `${g.eager(g.v(r.en, 0))} ? ${e} : ${g.eager(g.v(r.out, i))}`;
  if (rst !== null) e = `${g.eager(g.v(rst, 0))} ? ${resetWord(r, i)} : ${e}`;
  return e;
}

function genEdge(g: Gen): void {
  const regs = g.d.cells.filter((c): c is RegCell => c.kind === 'reg');
  // 1. memories: read the old contents, then write.
  genMemories(g, (k, i) => stateSlot(g, g.L.memories[k]!.rdData, i));
  // 2. next values of all registers, from this cycle's values (a single-use value is
  // substituted into its register's next-value expression).
  // In `run` resets are applied after the commit, one test per reset net (a reset cycle is rare,
  // so the branch is predicted) instead of a select per register word; the reset's pre-edge
  // value is held in a local.
  const hoist = g.loopState;
  const resets = new Map<NetId, { at: string; words: string[] }>();
  const next: { slot: string; tmp: string; expr: string }[] = [];
  for (const r of regs) {
    if (hoist && r.rst !== null && !resets.has(r.rst)) {
      const at = g.fresh();
      g.emit(`const ${at} = ${g.v(r.rst, 0)};`);
      resets.set(r.rst, { at, words: [] });
    }
    for (let i = 0; i < words(g.w(r.out)); i++) {
      const slot = stateSlot(g, r.out, i);
      next.push({ slot, tmp: `n${r.out}_${i}`, expr: nextValue(g, r, i, !hoist) });
      if (hoist && r.rst !== null) resets.get(r.rst)!.words.push(`${slot} = ${resetWord(r, i)};`);
    }
  }
  // 3. commit. In `run` a register no other next-value expression reads is assigned in place;
  // the others go through a temporary so every register sees the pre-edge values.
  const readBy = new Map<string, number>();
  next.forEach(({ expr }, k) => {
    for (const m of expr.matchAll(/\bs\d+_\d+\b/g))
      readBy.set(m[0], readBy.has(m[0]) && readBy.get(m[0]) !== k ? -1 : k);
  });
  const deferred: typeof next = [];
  next.forEach((x, k) => {
    const reader = readBy.get(x.slot);
    if (g.loopState && (reader === undefined || reader === k)) g.emit(`${x.slot} = ${x.expr};`);
    else {
      g.emit(`const ${x.tmp} = ${x.expr};`);
      deferred.push(x);
    }
  });
  for (const x of deferred) g.emit(`${x.slot} = ${x.tmp};`);
  for (const { at, words: assign } of resets.values()) g.emit(`if (${at}) {`, ...assign, '}');
}

function prologue(g: Gen): void {
  g.L.memories.forEach((_, k) => g.emit(`const M${k} = M[${k}];`));
  g.L.tables.forEach((_, k) => g.emit(`const T${k} = T[${k}];`));
}

export interface GeneratedSource {
  /** Body of `settle(V, M, T, stim)`. */
  settle: string;
  /**
   * Body of `settleOutputs(V, M, T, stim)`: the same for the output ports' fan-in cone only
   * (the combinational cells between the outputs and the inputs or state), storing the nets of
   * `outputCone`. What a test bench reads every cycle, at a fraction of `settle`'s cost.
   */
  settleOutputs: string;
  /** Nets `settleOutputs` stores: the outputs and every net of their combinational cone. */
  outputCone: ReadonlySet<NetId>;
  /** Body of a factory `(M, T) => run`, run(V, stim, stimBase, out, outBase, n, stats). */
  run: string;
  /** Number of functions the clock cycle is split into (1: one loop with state in locals). */
  chunks: number;
}

export interface GenerateOptions {
  /** Same-address reads during writes of 'undefined' memories return inverted data. */
  poison?: boolean;
  /**
   * Split `run` into functions of about this many characters of (first-pass) source. Default:
   * one function while it stays under MONOLITHIC_CHARS, else CHUNK_CHARS.
   */
  chunkChars?: number;
}

/**
 * V8 optimises no function over --max-optimized-bytecode-size (60 KB by default; sim/compiled.ts
 * raises it to OPTIMIZED_BYTECODE_LIMIT), and a function it does not optimise runs about ten times
 * slower. Generated source is about 1.5 characters per bytecode byte. One function with the
 * state in locals is the fastest form, but TurboFan's compile time grows faster than linearly
 * with its size (about 2 s at 90 K characters, 10 s at 200 K), so larger designs are split.
 */
export const OPTIMIZED_BYTECODE_LIMIT = 256 * 1024;
const MONOLITHIC_CHARS = 120_000;
const CHUNK_CHARS = 40000;
/** Parameters of every function of chunk mode (V: this cycle's values, W: the next state). */
const PARAMS = 'V, W, stim, ib, stats';
/** Register words per next-value function in chunk mode. */
const REGS_PER_CHUNK = 400;

/** Net words referenced once, from combinational code of the chunk defining them. */
function singleUse(g: Gen, chunked: boolean): Set<string> {
  return new Set(
    [...g.refs]
      .filter(([k, n]) => {
        if (n !== 1 || g.pinned.has(k)) return false;
        if (!chunked) return true;
        const users = g.useChunks.get(k);
        return users !== undefined && users.size === 1 && users.has(g.defChunk.get(k) ?? -2);
      })
      .map(([k]) => k),
  );
}

/**
 * Generates both functions. Each is generated twice: the first pass counts the references to
 * every net word; the second substitutes the expression of each word referenced once from
 * combinational code at its use, which keeps functions small enough for V8 to optimise.
 */
export function generate(d: Design, L: Layout, opts: GenerateOptions = {}): GeneratedSource {
  const order = combOrder(d);
  const poison = opts.poison ?? false;
  const lift = planLifts(d);
  const twoPass = (body: (g: Gen) => void, loopState: boolean): string => {
    const make = (inline?: ReadonlySet<string>): Gen => {
      const g = new Gen(d, L, inline, poison, undefined, loopState ? lift : null);
      g.loopState = loopState;
      body(g);
      return g;
    };
    return make(singleUse(make(), false)).out.join('\n');
  };
  // settle(V, M, T, stim) evaluates and stores every net; settleOutputs only the outputs' cone.
  const settleOf = (keep: (n: NetId) => boolean): string =>
    twoPass((s) => {
      prologue(s);
      genInputs(s, '0');
      genLoadState(s, keep);
      for (const c of order) if (keep(cellOutput(c))) genComb(s, c);
      s.pinning = true;
      for (const n of d.nets) {
        if (!keep(n.id)) continue;
        for (let i = 0; i < words(n.width); i++) s.emit(`V[${L.offset[n.id]! + i}] = ${s.v(n.id, i)};`);
      }
    }, false);
  const settle = settleOf(() => true);
  const cone = outputCone(d);
  const settleOutputs = settleOf((n) => cone.has(n));
  const header = `// generated by bloomforge sim for design '${d.name}'\n`;
  const common = { settle: header + settle, settleOutputs: header + settleOutputs, outputCone: cone };
  if (opts.chunkChars === undefined) {
    const run = twoPass((r) => {
      prologue(r);
      const state = stateNets(d).flatMap((n) => Array.from({ length: words(r.w(n)) }, (_, i) => [n, i] as const));
      r.emit('return function run(V, stim, stimBase, out, outBase, n, stats) {');
      for (const [n, i] of state) r.emit(`let s${n}_${i} = V[${L.offset[n]! + i}];`);
      r.collisions = 'collisions';
      r.emit('let collisions = 0;');
      r.emit(`for (let cyc = 0; cyc < n; cyc++) {`);
      r.emit(`const ib = stimBase + cyc * ${L.inputWords};`);
      genInputs(r, 'ib');
      genLoadState(r);
      for (const c of order) genComb(r, c);
      r.pinning = true;
      r.emit(`if (out !== null) {`);
      r.emit(`  const ob = outBase + cyc * ${L.outputWords};`);
      d.outputs.forEach((p, k) => {
        for (let i = 0; i < words(r.w(p.net)); i++)
          r.emit(`  out[ob + ${L.outputOffsets[k]! + i}] = ${r.v(p.net, i)};`);
      });
      r.emit('}');
      r.pinning = false;
      genEdge(r);
      r.emit('}');
      for (const [n, i] of state) r.emit(`V[${L.offset[n]! + i}] = s${n}_${i};`);
      r.emit('stats[0] += collisions;');
      r.emit('};');
    }, true);
    if (run.length <= MONOLITHIC_CHARS) return { ...common, run: header + run, chunks: 1 };
  }
  const chunked = generateChunked(d, L, order, poison, opts.chunkChars ?? CHUNK_CHARS, lift);
  return { ...common, run: header + chunked.run, chunks: chunked.chunks };
}

/**
 * The output ports and every net they depend on combinationally in the same cycle; the walk
 * stops at inputs and at state (register outputs, memory read data), which are kept in the set.
 */
export function outputCone(d: Design): Set<NetId> {
  return fanInCone(
    d,
    d.outputs.map((p) => p.net),
    combInputs,
  );
}

/** A register's word: the register and the word's index. */
type RegWord = readonly [RegCell, number];

/**
 * Where chunk mode computes each register word's next value: in the combinational chunk right
 * after the last cell driving its data, enable or reset (`after`, by cell index in the order), so
 * those values need not pass through V; registers fed only by state and inputs (`alone`) get
 * functions of their own.
 */
interface RegPlacement {
  regWords: RegWord[];
  after: Map<number, RegWord[]>;
  alone: RegWord[];
}

function placeRegisters(d: Design, order: readonly Cell[]): RegPlacement {
  const regs = d.cells.filter((c): c is RegCell => c.kind === 'reg');
  const regWords = regs.flatMap((r) =>
    Array.from({ length: words(d.nets[r.out]!.width) }, (_, i): RegWord => [r, i] as const),
  );
  const position = new Map<NetId, number>(order.map((c, idx) => [cellOutput(c), idx]));
  const after = new Map<number, RegWord[]>();
  const alone: RegWord[] = [];
  for (const rw of regWords) {
    const [r] = rw;
    const at = Math.max(...[r.d, r.en, r.rst].map((n) => (n === null ? -1 : (position.get(n) ?? -1))));
    if (at < 0) alone.push(rw);
    else if (after.has(at)) after.get(at)!.push(rw);
    else after.set(at, [rw]);
  }
  return { regWords, after, alone };
}

/** What one pass of chunk mode works from. */
interface ChunkPass {
  d: Design;
  L: Layout;
  order: readonly Cell[];
  chunkChars: number;
  regs: RegPlacement;
  /** Null in the first pass, which fixes `starts`; the second pass's inlining and live-outs. */
  plan: ChunkPlan | null;
  /** Where each chunk starts (cell index in `order`): filled by the first pass. */
  starts: number[];
}

/** The generated functions of a pass and the count of those a cycle calls. */
interface ChunkedFns {
  fns: string[];
  chunks: number;
}

/**
 * `run` split into functions, for designs too large for one optimised function. Every value
 * lives in V between functions: each clock cycle runs the combinational chunks in order (each
 * stores what later chunks read), copies the outputs, writes the registers' next values and the
 * memories' read data into the other state buffer W, clocks the memories, and swaps V and W
 * (every state word is written each cycle, so nothing is copied per cycle).
 */
function generateChunked(
  d: Design,
  L: Layout,
  order: Cell[],
  poison: boolean,
  chunkChars: number,
  lift: LiftPlan,
): { run: string; chunks: number } {
  const pass = { d, L, order, chunkChars, regs: placeRegisters(d, order), starts: [] as number[] };
  const first = new Gen(d, L, undefined, poison, undefined, lift);
  chunkedPass(first, { ...pass, plan: null });
  const liveOut = new Set(
    [...first.useChunks]
      .filter(([k, users]) => first.defChunk.has(k) && [...users].some((u) => u !== first.defChunk.get(k)))
      .map(([k]) => k),
  );
  const plan = { inline: singleUse(first, true), liveOut };
  const second = chunkedPass(new Gen(d, L, plan.inline, poison, plan.liveOut, lift), { ...pass, plan });
  return { run: second.fns.join('\n'), chunks: second.chunks };
}

/** One pass of chunk mode with `g`: every function of `run` and the loop calling them. */
function chunkedPass(g: Gen, p: ChunkPass): ChunkedFns {
  const fns: string[] = [];
  const combChunks = genCombChunks(g, p, fns);
  const outputCode = genChunkOutputs(g, p);
  const regFns = genLoneRegisters(g, p, fns);
  genMemoryChunk(g, p, fns);
  fns.push(chunkLoop(p, combChunks, outputCode, regFns));
  // Every cycle writes every state word into W and every other word it reads into V before
  // reading it, so neither array needs copying per call; when the state ends in W0 (n odd) its
  // state words are copied to the caller's V (only those: `step` runs one cycle per call).
  const stateWords = [
    ...p.regs.regWords.map(([r, i]) => p.L.offset[r.out]! + i),
    ...p.L.memories.flatMap((m) => Array.from({ length: words(m.width) }, (_, i) => p.L.offset[m.rdData]! + i)),
  ];
  fns.unshift(`const SW = new Uint32Array([${stateWords.join(', ')}]);`);
  fns.unshift(`const W0 = new Int32Array(${Math.max(1, p.L.size)});`);
  const pro = new Gen(p.d, p.L);
  prologue(pro);
  fns.unshift(...pro.out);
  return { fns, chunks: combChunks + regFns.length + 1 };
}

/** The chunk being generated in `g` as function `name`. */
function chunkFn(g: Gen, name: string, pre: string[] = [], post: string[] = []): string {
  return `function ${name}(${PARAMS}) {\n${[...g.header, ...pre, ...g.out, ...post].join('\n')}\n}`;
}

/** The combinational chunks c0, c1, … (with the next values placed after their cells); their count. */
function genCombChunks(g: Gen, p: ChunkPass, fns: string[]): number {
  let k = 0;
  g.startChunk(0);
  p.order.forEach((c, idx) => {
    const split = p.plan === null ? g.chars > p.chunkChars : p.starts.includes(idx);
    if (idx > 0 && split) {
      fns.push(chunkFn(g, `c${k}`));
      g.startChunk(++k);
      if (p.plan === null) p.starts.push(idx);
    }
    genComb(g, c);
    for (const [r, i] of p.regs.after.get(idx) ?? []) g.emit(`W[${p.L.offset[r.out]! + i}] = ${nextValue(g, r, i)};`);
  });
  fns.push(chunkFn(g, `c${k}`));
  return k + 1;
}

/** The outputs: read like any other chunk, inside the `out !== null` test of the loop. */
function genChunkOutputs(g: Gen, p: ChunkPass): string[] {
  g.startChunk(1_000_000);
  const outs: string[] = [];
  p.d.outputs.forEach((port, q) => {
    for (let i = 0; i < words(p.d.nets[port.net]!.width); i++)
      outs.push(`out[ob + ${p.L.outputOffsets[q]! + i}] = ${g.v(port.net, i)};`);
  });
  return [...g.header, ...outs];
}

/** Next values of registers with no combinational input, REGS_PER_CHUNK words a function; their calls. */
function genLoneRegisters(g: Gen, p: ChunkPass, fns: string[]): string[] {
  const calls: string[] = [];
  const { alone } = p.regs;
  for (let at = 0; at < alone.length; at += REGS_PER_CHUNK) {
    g.startChunk(1_000_001 + at);
    alone
      .slice(at, at + REGS_PER_CHUNK)
      .forEach(([r, i]) => g.emit(`W[${p.L.offset[r.out]! + i}] = ${nextValue(g, r, i)};`));
    fns.push(chunkFn(g, `r${at}`));
    calls.push(`r${at}(${PARAMS});`);
  }
  return calls;
}

/** The memories: read every memory's old word first, then store them (a port may read another memory's read data). */
function genMemoryChunk(g: Gen, p: ChunkPass, fns: string[]): void {
  g.startChunk(2_000_000);
  const rdLocal = (k: number, i: number): string => `rd${k}_${i}`;
  const pre: string[] = [];
  const post: string[] = [];
  p.L.memories.forEach((m, k) => {
    for (let i = 0; i < words(m.width); i++) {
      pre.push(`let ${rdLocal(k, i)} = V[${p.L.offset[m.rdData]! + i}];`);
      post.push(`W[${p.L.offset[m.rdData]! + i}] = ${rdLocal(k, i)};`);
    }
  });
  genMemories(g, rdLocal);
  fns.push(chunkFn(g, 'mem', pre, post));
}

/** The factory's result: `run`, calling the chunks each cycle and swapping V and W. */
function chunkLoop(p: ChunkPass, combChunks: number, outputCode: string[], regFns: string[]): string {
  const calls = Array.from({ length: combChunks }, (_, j) => `c${j}(${PARAMS});`);
  return [
    'return function run(V0, stim, stimBase, out, outBase, n, stats) {',
    'let V = V0;',
    'let W = W0;',
    'for (let cyc = 0; cyc < n; cyc++) {',
    `const ib = stimBase + cyc * ${p.L.inputWords};`,
    ...calls,
    'if (out !== null) {',
    `const ob = outBase + cyc * ${p.L.outputWords};`,
    ...outputCode,
    '}',
    ...regFns,
    `mem(${PARAMS});`,
    'const t = V;',
    'V = W;',
    'W = t;',
    '}',
    'if (V !== V0) for (let k = 0; k < SW.length; k++) V0[SW[k]] = V[SW[k]];',
    '};',
  ].join('\n');
}
