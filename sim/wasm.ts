/**
 * WebAssembly back-end of the compiled simulator's clock-cycle loop (`run`).
 *
 * sim/codegen.ts turns a design into JavaScript; V8 compiles that with TurboFan, which keeps
 * every JavaScript value live at a possible deoptimisation point recoverable and turns each
 * `c ? a : b` into a branch. On the BTBF preset about half of the optimised loop's x86
 * instructions were moves to and from stack slots (sim/bench/profile.sh). The same cycle as a
 * WebAssembly function has no deoptimisation points, a select is a conditional move, memory
 * accesses need no bounds checks (V8 guards a 32-bit memory with unmapped pages on 64-bit
 * hosts), and every value is an i32.
 *
 * This module emits one function, `run(n, writeOut) -> collisions`, with the same semantics as
 * the JavaScript `run`: cycle c reads its input row from the stimulus staging area, stores the
 * outputs (pre-edge) into the output staging area when `writeOut` is non-zero, then applies the
 * clock edge (memories read then written, registers committed together, synchronous resets).
 * Every combinational net word is an i32 local. The state (register outputs, memory read data)
 * is not: it lives in two copies of V, the current one (read) and the next one (written), which
 * trade places at each clock edge. A state word read more than once in a cycle is loaded into a
 * local where it is first read, one read once is loaded where it is read. Each register's and
 * memory's edge is emitted as soon as the nets it reads are computed (its next value stored into
 * the next V there), so those nets need not stay live to the end of the cycle. Loop-carried
 * locals for the state, as this loop first had, live across the whole loop, and the register
 * allocator kept most of them in stack slots and moved them every cycle (on APBF (4, 3) 1166 of
 * the loop's 2313 x86 instructions were moves to or from the stack, sim/bench/profile.sh); with
 * the state in memory the same design runs about twice as fast, with the early edges and late
 * loads about 1.3-2x faster again (bench:sim, README "Benchmark"). A state word read far apart
 * in the cycle is loaded again where it is next read (RELOAD_DISTANCE).
 * A bank of registers written at decoded indices (`indexedWrites`: the lane response queues'
 * answers until 9b72a7a, each with the enable bit of its index and its writers' data, a priority
 * chain where there are several: the former reorder queues had one writer per shard; since then
 * their write slot is one-hot row and column registers, a form this does not take — `lanes bench`
 * at 3e4842a measured the simulator on the HX8K lane presets no slower than at 356b498) has
 * no per-entry edge: each writer stores its data at its slot, once every read of the bank in the
 * cycle is generated, into both copies of V, so an entry not written keeps its value in both.
 * Only the cells whose values the loop reads are generated (`liveCells`): not the inner muxes of
 * an indexed select, nor a bank's enables and chains.
 * After the loop the state is copied back to V if it ended in the other copy. The word
 * format is sim/codegen.ts's: ceil(W/32) little-endian words, bits above W clear.
 *
 * All arrays the simulator shares with its JavaScript functions (V, the memories, the H3
 * tables, the staging areas) live in one WebAssembly.Memory at the offsets of `WasmPlan`, so
 * `settle`, `peek` and `readMemory` see what `run` wrote.
 */
import { combOrder, driverMap } from '../src/ir/topo.js';
import {
  assertNever,
  cellInputs,
  cellOutput,
  type Cell,
  type Design,
  type MemoryCell,
  type NetId,
  type RegCell,
} from '../src/ir/types.js';
import { concatSlices, h3Lookups, words, wordMask, type Layout } from './codegen.js';
import type { Lift, LiftPlan } from './lift.js';
import { section, sleb, str, uleb, WASM_HEADER } from '../src/util/wasmBytes.js';

/** Byte offsets of the arrays in the simulator's WebAssembly.Memory. */
export interface WasmPlan {
  /** V: every net's words (layout.size). */
  v: number;
  /** A second V (layout.size words): the next state while `run` loops (see generateWasm). */
  v2: number;
  /** One region per memory (depth * words(width) words). */
  mems: number[];
  /** One region per H3 table. */
  tables: number[];
  /** Per multi-word shift cell, 3 * words(width) scratch words: zeros, the value, zeros. */
  scratch: Map<Cell, number>;
  /** Where an indexed write that writes nothing stores (`indexedWrites`): the widest register's words. */
  sink: number;
  /** Stimulus staging: `block` rows of layout.inputWords words. */
  stim: number;
  /** Output staging: `block` rows of layout.outputWords words. */
  out: number;
  /** Size of the memory in 64 KiB pages. */
  pages: number;
}

const PAGE = 65536;

/**
 * A state word kept in a local is loaded again where it is read more than this many cells after
 * its last load, so that no local lives across the whole cycle (on the 4 × 4 lane presets,
 * over 6000 cells, such locals were spilled to stack slots and moved around; README "Benchmark").
 */
const RELOAD_DISTANCE = 200;

/** Where everything goes, with `block` rows of stimulus and outputs per call of `run`. */
export function planMemory(d: Design, L: Layout, block: number): WasmPlan {
  let at = 0;
  const take = (nWords: number): number => {
    const o = at;
    at += Math.max(1, nWords) * 4;
    at = (at + 15) & ~15;
    return o;
  };
  const v = take(L.size);
  const v2 = take(L.size);
  const mems = L.memories.map((m) => take(m.depth * words(m.width)));
  const tables = L.tables.map((t) => take(t.length));
  const scratch = new Map<Cell, number>();
  for (const c of d.cells) {
    const w = c.kind === 'shift' ? words(d.nets[c.out]!.width) : 1;
    if (w > 1) scratch.set(c, take(3 * w));
  }
  const sink = take(d.cells.reduce((w, c) => (c.kind === 'reg' ? Math.max(w, words(d.nets[c.out]!.width)) : w), 0));
  const stim = take(block * L.inputWords);
  const out = take(block * L.outputWords);
  return { v, v2, mems, tables, scratch, sink, stim, out, pages: Math.ceil(at / PAGE) };
}

// ---------------------------------------------------------------------------------------------
// Binary encoding (the subset used: one imported memory, one function of i32 locals).

const OP = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  select: 0x1b,
  get: 0x20,
  set: 0x21,
  load: 0x28,
  store: 0x36,
  const: 0x41,
  eqz: 0x45,
  eq: 0x46,
  ne: 0x47,
  ltU: 0x49,
  gtU: 0x4b,
  leU: 0x4d,
  geU: 0x4f,
  popcnt: 0x69,
  add: 0x6a,
  sub: 0x6b,
  mul: 0x6c,
  and: 0x71,
  or: 0x72,
  xor: 0x73,
  shl: 0x74,
  shrU: 0x76,
} as const;
const VOID = 0x40;
const I32 = 0x7f;

/** Code that pushes one i32. */
type Ex = number[];
const K = (c: number): Ex => [OP.const, ...sleb(c)];
const bin = (op: number, a: Ex, b: Ex): Ex => [...a, ...b, op];
const and = (a: Ex, b: Ex): Ex => bin(OP.and, a, b);
const or = (a: Ex, b: Ex): Ex => bin(OP.or, a, b);
const xor = (a: Ex, b: Ex): Ex => bin(OP.xor, a, b);
const shl = (a: Ex, s: number): Ex => (s === 0 ? a : bin(OP.shl, a, K(s)));
const shr = (a: Ex, s: number): Ex => (s === 0 ? a : bin(OP.shrU, a, K(s)));
const mask = (a: Ex, m: number): Ex => ((m | 0) === -1 ? a : and(a, K(m)));
const not = (a: Ex, m: number): Ex => mask(xor(a, K(-1)), m);
/** c ? t : f, branch-free (a conditional move). */
const sel = (c: Ex, t: Ex, f: Ex): Ex => [...t, ...f, ...c, OP.select];
const memarg = (offset: number): number[] => [2, ...uleb(offset)];
const load = (addr: Ex, offset: number): Ex => [...addr, OP.load, ...memarg(offset)];
const store = (addr: Ex, value: Ex, offset: number): number[] => [...addr, ...value, OP.store, ...memarg(offset)];
const orAll = (xs: Ex[]): Ex => xs.reduce((acc, x) => or(acc, x));

class Fn {
  readonly code: number[] = [];
  /** Parameters first (n, writeOut), then the declared locals. */
  private nLocals = 2;
  local(): number {
    return this.nLocals++;
  }
  get(l: number): Ex {
    return [OP.get, ...uleb(l)];
  }
  set(l: number, e: Ex): void {
    this.code.push(...e, OP.set, ...uleb(l));
  }
  emit(...bytes: number[]): void {
    for (const b of bytes) this.code.push(b);
  }
  body(): number[] {
    const locals = this.nLocals - 2;
    const decl = locals > 0 ? [1, ...uleb(locals), I32] : [0];
    const b = [...decl, ...this.code, OP.end];
    return [...uleb(b.length), ...b];
  }
}

// ---------------------------------------------------------------------------------------------

export interface WasmRunOptions {
  poison: boolean;
  lift: LiftPlan | null;
}

/**
 * The module bytes of `run(n: i32, writeOut: i32) -> i32` (the count of same-address reads
 * during writes on 'undefined' memories in those n cycles), importing the memory as env.mem.
 */
export function generateWasm(d: Design, L: Layout, plan: WasmPlan, opts: WasmRunOptions): Uint8Array<ArrayBuffer> {
  const f = new Fn();
  const W = (n: NetId): number => d.nets[n]!.width;
  const nw = (n: NetId): number => words(W(n));
  const locals = new Map<string, number>();
  const consts = new Map<string, number>();
  const localOf = (n: NetId, i: number): number => {
    const key = `${n}_${i}`;
    let l = locals.get(key);
    if (l === undefined) {
      l = f.local();
      locals.set(key, l);
    }
    return l;
  };
  // The state (register outputs, memory read data) lives in memory, in two V areas: read from the
  // current one, each next value stored into the other where it is computed, the two swapped at
  // the clock edge (see the header).
  const isState = new Set<NetId>();
  const val = (n: NetId, i: number): Ex => {
    const c = consts.get(`${n}_${i}`);
    if (c !== undefined) return K(c);
    if (isState.has(n)) {
      if (!stateLocal.has(n)) return load(f.get(cur), (L.offset[n]! + i) * 4);
      if (!loaded.has(n) || pos - loadedAt.get(n)! > RELOAD_DISTANCE) loadState(n);
    }
    return f.get(localOf(n, i));
  };
  const defined = new Set<NetId>();
  /** Nets computed since the clock edges waiting on nets were last looked at (see `flush`). */
  const fresh: NetId[] = [];
  const def = (n: NetId, i: number, e: Ex): void => {
    if (!defined.has(n)) {
      defined.add(n);
      fresh.push(n);
    }
    f.set(localOf(n, i), e);
  };
  /** Bits [lo, lo+len) of net n, len <= 32. */
  const bits = (n: NetId, lo: number, len: number): Ex => {
    const q = lo >>> 5;
    const r = lo & 31;
    const m = wordMask(len, 0);
    if (r + len <= 32) {
      const s = shr(val(n, q), r);
      if (r + len === 32 || (r === 0 && len >= W(n) - 32 * q)) return s;
      return mask(s, m);
    }
    return mask(or(shr(val(n, q), r), shl(val(n, q + 1), 32 - r)), m);
  };
  // A select's condition: a 1-bit net that is a bit of another net is tested in that net's word
  // (an AND with a constant, which x86 fuses with the test of the select) rather than shifted
  // down and masked first; the slice is still generated, and left unread unless read elsewhere.
  const driver = driverMap(d);
  const absorbed = (n: NetId): boolean => opts.lift?.absorbed.has(driver.get(n)!) ?? false;
  const bitOf = new Map<NetId, { a: NetId; lo: number }>();
  for (const c of d.cells)
    if (c.kind === 'slice' && W(c.out) === 1 && !absorbed(c.a)) bitOf.set(c.out, { a: c.a, lo: c.lo });
  /** Non-zero iff bit `bit` of net n is set. */
  const bitTest = (n: NetId, bit: number): Ex => and(val(n, bit >>> 5), K(1 << (bit & 31)));
  /** Non-zero iff the 1-bit net n is 1. */
  const test = (n: NetId): Ex => {
    const b = bitOf.get(n);
    return b ? bitTest(b.a, b.lo) : val(n, 0);
  };
  const liftEx = (parts: readonly Lift[]): Ex => {
    const one = (x: Lift): Ex => {
      switch (x.k) {
        case 'ones':
          return K(x.value);
        case 'bits': {
          let e = bits(x.src, x.lo, x.len);
          if (x.mask !== wordMask(x.len, 0)) e = mask(e, x.mask);
          return shl(e, x.at);
        }
        case 'not':
          return not(liftEx(x.a), x.mask);
        case 'bitwise':
          return bin({ and: OP.and, or: OP.or, xor: OP.xor }[x.op], liftEx(x.a), liftEx(x.b));
        case 'mux':
          return sel(bitTest(x.sel, x.selBit), liftEx(x.t), liftEx(x.f));
        default:
          return assertNever(x);
      }
    };
    return parts.length === 0 ? K(0) : orAll(parts.map(one));
  };

  const indexed = indexedSelects(d, L, opts.lift, driver);
  const regs = d.cells.filter((c): c is RegCell => c.kind === 'reg');
  // Banks written at decoded indices: their entries have no edge of their own; each writer stores
  // its data at its slot once every read of the bank in the cycle is generated, into both V
  // copies (so an entry not written holds its value in both; `run` starts by making the next
  // copy equal to the current one).
  const banks = indexedWrites(d, L, opts.lift, driver);
  const banked = new Set<Cell>(banks.flatMap((b) => b.regs));
  const used = liveCells(d, { driver, indexed, banks, lift: opts.lift });
  /**
   * The nets computed by the generated cells that read an entry of bank b — through their
   * inputs, a bit of an entry tested in place (`test`), a lifted word's sources, or as an indexed
   * select (its index or word an entry, or registers whose words include an entry's) — or null
   * when an output port or the edge of a register or memory reads an entry (then its writes wait
   * for every edge).
   */
  const bankReaders = (b: IndexedWrite): NetId[] | null => {
    const entries = new Set(b.regs.map((r) => r.out));
    const entryWords = new Set(
      b.regs.flatMap((r) => Array.from({ length: nw(r.out) }, (_, i) => L.offset[r.out]! + i)),
    );
    const readsEntry = (ns: readonly NetId[]): boolean =>
      ns.some((n) => entries.has(n) || entries.has(bitOf.get(n)?.a ?? -1));
    if (readsEntry(d.outputs.map((p) => p.net))) return null;
    for (const c of d.cells)
      if ((c.kind === 'memory' || (c.kind === 'reg' && !banked.has(c))) && readsEntry(cellInputs(c))) return null;
    const out: NetId[] = [];
    for (const c of d.cells) {
      if (!used.has(c)) continue;
      const x = c.kind === 'mux' ? indexed.get(c.out) : undefined;
      const loadsEntry =
        x?.from === 'state' &&
        Array.from({ length: 2 ** x.idxBits }, (_, k) => x.base + x.stride * k).some((o) =>
          Array.from({ length: words(x.width) }, (_, i) => o + i).some((w) => entryWords.has(w)),
        );
      if (loadsEntry || readsEntry(genReads(c, indexed, opts.lift))) out.push(cellOutput(c));
    }
    return out;
  };
  const readersOf = new Map(banks.map((b) => [b, bankReaders(b)]));
  const stateNets = d.cells.flatMap((c) => (c.kind === 'reg' ? [c.out] : c.kind === 'memory' ? [c.rdData] : []));
  const iw = L.inputWords;
  const ow = L.outputWords;
  for (const n of stateNets) isState.add(n);
  // State read more than once a cycle: loaded into a local at the top of the cycle (a load per
  // read costs more than keeping it); read once: loaded where it is read.
  const stateLocal = new Set<NetId>();
  {
    const reads = new Map<NetId, number>();
    const count = (n: NetId | null): void => {
      if (n !== null && isState.has(n)) reads.set(n, (reads.get(n) ?? 0) + 1);
    };
    for (const c of d.cells)
      if (c.kind === 'memory' || (c.kind === 'reg' && !banked.has(c)) || used.has(c))
        for (const n of cellInputs(c)) count(n);
    for (const r of regs) if (r.en !== null && !banked.has(r)) count(r.out);
    for (const b of banks) for (const w of b.writers) [w.valid, w.slot, w.data].forEach(count);
    for (const p of d.outputs) count(p.net);
    for (const [n, k] of reads) if (k > 1) stateLocal.add(n);
  }
  const cur = f.local();
  const nxt = f.local();
  const loaded = new Set<NetId>();
  /** Where (the count of cells generated) each state net in locals was last loaded. */
  const loadedAt = new Map<NetId, number>();
  let pos = 0;
  const resets = new Map<NetId, { pre: number; assign: { net: NetId; i: number; rv: number }[] }>();
  /** Register r's edge: its next value into the next V; a reset's value is applied after all. */
  function genReg(r: RegCell): void {
    if (r.rst !== null && !resets.has(r.rst)) {
      const pre = f.local();
      f.set(pre, val(r.rst, 0));
      resets.set(r.rst, { pre, assign: [] });
    }
    for (let i = 0; i < nw(r.out); i++) {
      let e = val(r.d, i);
      if (r.en !== null) e = sel(test(r.en), e, val(r.out, i));
      f.emit(...store(f.get(nxt), e, (L.offset[r.out]! + i) * 4));
      if (r.rst !== null) {
        const rv = Number((r.resetValue >> BigInt(32 * i)) & 0xffffffffn) | 0;
        resets.get(r.rst)!.assign.push({ net: r.out, i, rv });
      }
    }
  }
  /** State net n into its locals (again, if loaded before: the current V is not written). */
  function loadState(n: NetId): void {
    loaded.add(n);
    loadedAt.set(n, pos);
    for (let i = 0; i < nw(n); i++) def(n, i, load(f.get(cur), (L.offset[n]! + i) * 4));
  }
  const cyc = f.local();
  const ib = f.local();
  const ob = f.local();
  const collisions = f.local();
  const N = 0;
  const WRITE_OUT = 1;

  // Prologue: the state is in V; the banks' entries in the other copy too.
  f.set(cur, K(plan.v));
  f.set(nxt, K(plan.v2));
  for (const b of banks)
    for (const r of b.regs)
      for (let i = 0; i < nw(r.out); i++) {
        const off = (L.offset[r.out]! + i) * 4;
        f.emit(...store(K(0), load(K(0), plan.v + off), plan.v2 + off));
      }
  f.set(cyc, f.get(N));
  f.set(ib, K(0));
  f.set(ob, K(0));
  f.set(collisions, K(0));
  f.emit(OP.block, VOID, OP.loop, VOID);
  f.emit(...f.get(cyc), OP.eqz, OP.brIf, 1);

  // State read more than once a cycle is loaded into its locals where it is first read (so the
  // local lives from there, not from the top of the cycle), and before the output block at the
  // latest (the block is conditional).
  loaded.clear();

  // Inputs.
  d.inputs.forEach((p, k) => {
    for (let i = 0; i < nw(p.net); i++) def(p.net, i, load(f.get(ib), plan.stim + (L.inputOffsets[k]! + i) * 4));
  });

  // Combinational logic, and each register's and memory's clock edge as soon as the nets it reads
  // are computed: its next value is stored into the next V there (the current V is not written
  // during the cycle), so the nets it reads need not stay live to the end of the cycle. An edge
  // whose nets are not all computed by then runs after the output block.
  //
  // Each edge counts the nets it still waits for and is listed under each of them; a net's
  // definition (`def`, or a constant's) counts down its waiters, so the edges are found without
  // scanning every pending edge after every cell. The edges that become ready after a cell are
  // generated in their list order, as a scan of the pending list in order would.
  type Edge = { order: number; inputs: NetId[]; gen: () => void; waits: number; done: boolean };
  const ready = (n: NetId): boolean => defined.has(n) || isState.has(n) || consts.has(`${n}_0`);
  const edges: Edge[] = [
    ...L.memories.map((m, k) => ({ inputs: cellInputs(m), gen: () => genMemory(m, k) })),
    ...regs
      .filter((r) => !banked.has(r))
      .map((r) => ({
        inputs: [r.d, r.out, ...(r.en === null ? [] : [r.en]), ...(r.rst === null ? [] : [r.rst])],
        gen: () => genReg(r),
      })),
    // A bank's writes wait for its writers' nets and for every cell reading one of its entries
    // (an indexed select of them among them); a bank read by an output port or by another edge
    // writes after every edge.
    ...banks.flatMap((b) => {
      const readers = readersOf.get(b)!;
      const nets = b.writers.flatMap((w) => [...(w.valid === null ? [] : [w.valid]), w.slot, w.data]);
      return readers === null ? [] : [{ inputs: [...nets, ...readers], gen: () => genBank(b) }];
    }),
  ].map((e, order) => ({ ...e, order, waits: 0, done: false }));
  const waiters = new Map<NetId, Edge[]>();
  let due: Edge[] = [];
  for (const e of edges) {
    for (const n of new Set(e.inputs)) {
      if (ready(n)) continue;
      e.waits++;
      const w = waiters.get(n);
      if (w) w.push(e);
      else waiters.set(n, [e]);
    }
    if (e.waits === 0) due.push(e);
  }
  const flush = (): void => {
    for (const n of fresh) {
      for (const e of waiters.get(n) ?? []) if (--e.waits === 0) due.push(e);
      waiters.delete(n);
    }
    fresh.length = 0;
    if (due.length === 0) return;
    const now = due.sort((a, b) => a.order - b.order);
    due = [];
    for (const e of now) {
      e.done = true;
      e.gen();
    }
  };
  flush();
  for (const c of combOrder(d)) {
    pos++;
    if (c.kind !== 'const' && !used.has(c)) continue;
    genCell(c);
    flush();
  }

  for (const n of stateLocal) if (!loaded.has(n)) loadState(n);

  // Outputs (pre-edge).
  f.emit(...f.get(WRITE_OUT), OP.if, VOID);
  d.outputs.forEach((p, k) => {
    for (let i = 0; i < nw(p.net); i++)
      f.emit(...store(f.get(ob), val(p.net, i), plan.out + (L.outputOffsets[k]! + i) * 4));
  });
  f.emit(OP.end);

  // Clock edge: the edges not placed in the combinational logic.
  for (const e of edges) if (!e.done) e.gen();
  for (const b of banks) if (readersOf.get(b) === null) genBank(b);
  // Synchronous resets after the edge: one test per reset net (rarely taken).
  for (const { pre, assign } of resets.values()) {
    f.emit(...f.get(pre), OP.if, VOID);
    for (const a of assign) f.emit(...store(f.get(nxt), K(a.rv), (L.offset[a.net]! + a.i) * 4));
    f.emit(OP.end);
  }
  const swap = f.local();
  f.set(swap, f.get(cur));
  f.set(cur, f.get(nxt));
  f.set(nxt, f.get(swap));
  f.set(ib, bin(OP.add, f.get(ib), K(iw * 4)));
  f.set(ob, bin(OP.add, f.get(ob), K(ow * 4)));
  f.set(cyc, bin(OP.sub, f.get(cyc), K(1)));
  f.emit(OP.br, 0, OP.end, OP.end);

  // Epilogue: the state back to V (from the V that holds it).
  for (const n of stateNets)
    for (let i = 0; i < nw(n); i++) {
      const off = (L.offset[n]! + i) * 4;
      f.emit(...store(K(0), load(f.get(cur), off), plan.v + off));
    }
  f.emit(...f.get(collisions));

  const body = f.body();
  const mod = [
    ...WASM_HEADER,
    ...section(1, [1, 0x60, 2, I32, I32, 1, I32]),
    ...section(2, [1, ...str('env'), ...str('mem'), 0x02, 0x00, ...uleb(plan.pages)]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...str('run'), 0x00, 0]),
    ...section(10, [1, ...body]),
  ];
  return new Uint8Array(mod);

  /** Bank b's writes, the lowest priority first; a writer not writing stores into the sink. */
  function genBank(b: IndexedWrite): void {
    for (const wr of b.writers) {
      const at = f.local();
      f.set(at, bin(OP.add, K(b.base * 4), bin(OP.mul, val(wr.slot, 0), K(b.stride * 4))));
      for (const area of [cur, nxt]) {
        const here = bin(OP.add, f.get(area), f.get(at));
        const addr = wr.valid === null ? here : sel(test(wr.valid), here, K(plan.sink));
        const a = f.local();
        f.set(a, addr);
        for (let i = 0; i < words(b.width); i++) f.emit(...store(f.get(a), val(wr.data, i), i * 4));
      }
    }
  }

  function genCell(c: Cell): void {
    if (opts.lift?.absorbed.has(c)) return;
    switch (c.kind) {
      case 'const':
        for (let i = 0; i < nw(c.out); i++)
          consts.set(`${c.out}_${i}`, Number((c.value >> BigInt(32 * i)) & 0xffffffffn) | 0);
        if (!defined.has(c.out)) fresh.push(c.out);
        return;
      case 'not':
        for (let i = 0; i < nw(c.out); i++) def(c.out, i, not(val(c.a, i), wordMask(W(c.out), i)));
        return;
      case 'bitwise': {
        const op = { and: OP.and, or: OP.or, xor: OP.xor }[c.op];
        for (let i = 0; i < nw(c.out); i++) def(c.out, i, bin(op, val(c.a, i), val(c.b, i)));
        return;
      }
      case 'arith': {
        const k = nw(c.out);
        const w = W(c.out);
        const op = c.op === 'add' ? OP.add : OP.sub;
        if (k === 1) {
          def(c.out, 0, mask(bin(op, val(c.a, 0), val(c.b, 0)), wordMask(w, 0)));
          return;
        }
        // Word by word with a carry (add) or borrow (sub) local.
        const carry = f.local();
        const t = f.local();
        f.set(carry, K(0));
        for (let i = 0; i < k; i++) {
          f.set(t, bin(op, val(c.a, i), val(c.b, i)));
          def(c.out, i, mask(bin(op, f.get(t), f.get(carry)), wordMask(w, i)));
          // add: carry out when a + b wrapped, or when adding the carry wrapped (t = 2^32 - 1);
          // sub: borrow when a < b, or when subtracting the borrow wrapped (t = 0).
          if (i < k - 1)
            f.set(
              carry,
              c.op === 'add'
                ? or(bin(OP.ltU, f.get(t), val(c.a, i)), and(f.get(carry), bin(OP.eq, f.get(t), K(-1))))
                : or(bin(OP.ltU, val(c.a, i), val(c.b, i)), and(f.get(carry), [...f.get(t), OP.eqz])),
            );
        }
        return;
      }
      case 'compare': {
        const k = nw(c.a);
        const eq = (): Ex =>
          k === 1
            ? bin(OP.eq, val(c.a, 0), val(c.b, 0))
            : [...orAll(Array.from({ length: k }, (_, i) => xor(val(c.a, i), val(c.b, i)))), OP.eqz];
        // Lexicographic from the top word; every word compared unsigned.
        const order = (op: number, strict: number): Ex => {
          let e = bin(op, val(c.a, 0), val(c.b, 0));
          for (let i = 1; i < k; i++)
            e = or(bin(strict, val(c.a, i), val(c.b, i)), and(bin(OP.eq, val(c.a, i), val(c.b, i)), e));
          return e;
        };
        const e = {
          eq: eq,
          ne: (): Ex => [...eq(), OP.eqz],
          ult: (): Ex => order(OP.ltU, OP.ltU),
          ule: (): Ex => order(OP.leU, OP.ltU),
          ugt: (): Ex => order(OP.gtU, OP.gtU),
          uge: (): Ex => order(OP.geU, OP.gtU),
        }[c.op]();
        def(c.out, 0, e);
        return;
      }
      case 'shift': {
        const w = W(c.out);
        const ka = nw(c.amount);
        const amt = f.local();
        // An amount with any high word set shifts everything out.
        const high = Array.from({ length: ka - 1 }, (_, i) => val(c.amount, i + 1));
        f.set(amt, ka > 1 ? sel(orAll(high), K(-1), val(c.amount, 0)) : val(c.amount, 0));
        const out = bin(OP.geU, f.get(amt), K(w));
        const k = nw(c.out);
        if (k === 1) {
          const e =
            c.op === 'shr'
              ? bin(OP.shrU, val(c.a, 0), f.get(amt))
              : mask(bin(OP.shl, val(c.a, 0), f.get(amt)), wordMask(w, 0));
          def(c.out, 0, sel(out, K(0), e));
          return;
        }
        // Multi-word: the value sits between two zero blocks of k words in a scratch area, so
        // word j of the shifted value is a load at a distance of (amount >> 5) words.
        const base = plan.scratch.get(c)!;
        for (let i = 0; i < k; i++) f.emit(...store(K(0), val(c.a, i), base + (k + i) * 4));
        const q = f.local();
        const r = f.local();
        f.set(q, sel(out, K(0), shr(f.get(amt), 5)));
        f.set(r, and(f.get(amt), K(31)));
        // Address of scratch word (k + i + s*q + d), in bytes, s = +1 (shr) or -1 (shl).
        const word = (i: number, dWords: number): Ex => {
          const idx =
            c.op === 'shl' ? bin(OP.sub, K(k + i + dWords), f.get(q)) : bin(OP.add, f.get(q), K(k + i + dWords));
          return load(shl(idx, 2), base);
        };
        for (let i = 0; i < k; i++) {
          const main = c.op === 'shl' ? bin(OP.shl, word(i, 0), f.get(r)) : bin(OP.shrU, word(i, 0), f.get(r));
          const spill =
            c.op === 'shl'
              ? bin(OP.shrU, word(i, -1), bin(OP.sub, K(32), f.get(r)))
              : bin(OP.shl, word(i, 1), bin(OP.sub, K(32), f.get(r)));
          const e = mask(or(main, sel([...f.get(r), OP.eqz], K(0), spill)), wordMask(w, i));
          def(c.out, i, sel(out, K(0), e));
        }
        return;
      }
      case 'mux': {
        const x = indexed.get(c.out);
        if (x) {
          const at = bits(x.idx, 0, x.idxBits);
          if (x.from === 'word') {
            // A field of one word picked by an index: a shift of the word.
            const amount = bin(OP.add, K(x.base), x.stride === 1 ? at : bin(OP.mul, at, K(x.stride)));
            def(c.out, 0, mask(bin(OP.shrU, val(x.word, 0), amount), wordMask(x.width, 0)));
          } else {
            // A register picked by an index: a load from the current V at a computed address.
            const addr = bin(OP.add, f.get(cur), bin(OP.mul, at, K(x.stride * 4)));
            for (let i = 0; i < nw(c.out); i++) def(c.out, i, load(addr, (x.base + i) * 4));
          }
          return;
        }
        for (let i = 0; i < nw(c.out); i++) def(c.out, i, sel(test(c.sel), val(c.whenTrue, i), val(c.whenFalse, i)));
        return;
      }
      case 'concat': {
        const lifted = opts.lift?.words.get(c);
        for (let i = 0; i < nw(c.out); i++) {
          const pl = lifted?.[i];
          const terms: Ex[] = pl ? [liftEx(pl)] : [];
          for (const x of concatSlices(d, c, i, pl !== undefined && pl !== null))
            terms.push(shl(bits(x.net, x.lo, x.len), x.at));
          def(c.out, i, terms.length === 0 ? K(0) : orAll(terms));
        }
        return;
      }
      case 'slice': {
        const w = W(c.out);
        for (let i = 0; i < words(w); i++) def(c.out, i, bits(c.a, c.lo + 32 * i, Math.min(32, w - 32 * i)));
        return;
      }
      case 'reduce': {
        const k = nw(c.a);
        const w = W(c.a);
        const ws = Array.from({ length: k }, (_, i) => val(c.a, i));
        let e: Ex;
        if (c.op === 'and') e = ws.map((x, i) => bin(OP.eq, x, K(wordMask(w, i) | 0))).reduce((a, b) => and(a, b));
        else if (c.op === 'or') e = bin(OP.ne, orAll(ws), K(0));
        else e = and([...ws.reduce((a, b) => xor(a, b)), OP.popcnt], K(1));
        def(c.out, 0, e);
        return;
      }
      case 'h3': {
        const { table, bytes } = h3Lookups(d, L, c);
        const terms = bytes.map((b) =>
          load(shl(mask(shr(val(c.key, b >>> 2), (b & 3) * 8), 255), 2), plan.tables[table]! + b * 1024),
        );
        def(c.out, 0, terms.length ? terms.reduce((a, b) => xor(a, b)) : K(0));
        return;
      }
      case 'reg':
      case 'memory':
        return;
      default:
        assertNever(c);
    }
  }

  /** Memory k's edge: read the old word(s) into fresh locals, then write. */
  function genMemory(m: MemoryCell, k: number): void {
    const ww = words(m.width);
    const base = plan.mems[k]!;
    const stride = ww * 4;
    const addr = (a: NetId): Ex =>
      (stride & (stride - 1)) === 0 ? shl(val(a, 0), Math.log2(stride)) : bin(OP.mul, val(a, 0), K(stride));
    // The DSL makes every memory's depth 2^(address width), so no address is out of range and
    // the load and store run every cycle, the enables selecting values.
    for (const a of [m.rdAddr, m.wrAddr])
      if (2 ** W(a) !== m.depth)
        throw new Error(`memory '${m.name}': a ${W(a)}-bit address for depth ${m.depth} (expected 2^width)`);
    const undef = m.readDuringWrite === 'undefined';
    const coll = f.local();
    if (undef) {
      f.set(coll, and(and(bin(OP.eq, val(m.wrAddr, 0), val(m.rdAddr, 0)), val(m.rdEn, 0)), val(m.wrEn, 0)));
      f.set(collisions, bin(OP.add, f.get(collisions), f.get(coll)));
    }
    for (let i = 0; i < ww; i++) {
      let e = load(addr(m.rdAddr), base + i * 4);
      if (undef && opts.poison) e = xor(e, and(K(wordMask(m.width, i) | 0), bin(OP.sub, K(0), f.get(coll))));
      f.emit(...store(f.get(nxt), sel(test(m.rdEn), e, val(m.rdData, i)), (L.offset[m.rdData]! + i) * 4));
    }
    const merged = (i: number, old: Ex): Ex => {
      const data = val(m.wrData, i);
      if (m.wrMask === null) return data;
      const mk = val(m.wrMask, i);
      return or(and(old, xor(mk, K(-1))), and(data, mk));
    };
    for (let i = 0; i < ww; i++) {
      const off = base + i * 4;
      const old = f.local();
      f.set(old, load(addr(m.wrAddr), off));
      f.emit(...store(addr(m.wrAddr), sel(test(m.wrEn), merged(i, f.get(old)), f.get(old)), off));
    }
  }
}

/**
 * A mux tree picking one of 2^idxBits values by the low bits of an index net: bits [base +
 * stride·idx, + width) of a net `word` of at most 32 bits (`from: 'word'`), or the state net at
 * word offset base + stride·idx of V (`from: 'state'`: registers laid out at a constant stride).
 */
export interface IndexedSelect {
  from: 'word' | 'state';
  /** The word picked from (from: 'word'). */
  word: NetId;
  base: number;
  stride: number;
  width: number;
  idx: NetId;
  idxBits: number;
}

/**
 * The mux trees (`muxTree`: level b selects on bit b of one index) whose leaves are slices of one
 * word of at most 32 bits at a constant distance (consecutive fields, as generators make them, or
 * with gaps), or register outputs at a constant distance in V, by the net of their root; trees of
 * at least 4 leaves. The wasm loop computes a word's field as one
 * shift and mask and a register's as one load at a computed address; the tree's inner muxes are
 * not generated unless read elsewhere (`liveCells`).
 */
export function indexedSelects(
  d: Design,
  L: Layout,
  lift: LiftPlan | null,
  driver: ReadonlyMap<NetId, Cell> = driverMap(d),
): Map<NetId, IndexedSelect> {
  const regOut = new Set<NetId>();
  for (const c of d.cells) if (c.kind === 'reg') regOut.add(c.out);
  const width = (n: NetId): number => d.nets[n]!.width;
  const computed = (n: NetId): boolean => {
    const c = driver.get(n);
    return c === undefined || !(lift?.absorbed.has(c) ?? false);
  };
  type Partial = Omit<IndexedSelect, 'idx'> & { idx: NetId | null };
  const memo = new Map<NetId, Partial | null>();
  const of = (n: NetId): Partial | null => {
    if (memo.has(n)) return memo.get(n)!;
    memo.set(n, null);
    const c = driver.get(n);
    let r: Partial | null = null;
    if (regOut.has(n))
      r = { from: 'state', word: n, base: L.offset[n]!, stride: 0, width: width(n), idx: null, idxBits: 0 };
    else if (c?.kind === 'slice' && width(c.a) <= 32)
      r = { from: 'word', word: c.a, base: c.lo, stride: 0, width: width(n), idx: null, idxBits: 0 };
    else if (c?.kind === 'mux') {
      const s = driver.get(c.sel);
      const t = of(c.whenTrue);
      const f = of(c.whenFalse);
      if (s?.kind === 'slice' && t && f && t.from === f.from && t.width === f.width && t.idxBits === f.idxBits) {
        const b = s.lo;
        const stride = b === 0 ? t.base - f.base : f.stride;
        const sameWord = t.from === 'state' || t.word === f.word;
        const sameIdx = b === 0 || (t.idx === s.a && f.idx === s.a && t.stride === f.stride);
        if (b === t.idxBits && sameWord && sameIdx && stride > 0 && t.base === f.base + stride * 2 ** b)
          r = { ...f, stride, idx: s.a, idxBits: b + 1 };
      }
    }
    memo.set(n, r);
    return r;
  };
  // Roots only: a tree inside a larger one is not read by the code that replaces the larger.
  const inner = new Set<NetId>();
  for (const c of d.cells)
    if (c.kind === 'mux' && of(c.out) !== null) {
      inner.add(c.whenTrue);
      inner.add(c.whenFalse);
    }
  const out = new Map<NetId, IndexedSelect>();
  for (const c of d.cells) {
    if (c.kind !== 'mux' || inner.has(c.out)) continue;
    const r = of(c.out);
    if (r && r.idx !== null && r.idxBits >= 2 && computed(r.idx) && (r.from === 'state' || computed(r.word)))
      out.set(c.out, { ...r, idx: r.idx });
  }
  return out;
}

/**
 * A bank of registers written at decoded indices: entry j (V word offset base + stride·j) has
 * enable bit j of an OR of one-hot decoders `valid ? 1 << slot : 0` (or `1 << slot`), and as its
 * next value the data of the first decoder in a fixed priority order whose bit j is set — a mux
 * chain on those bits, the same data nets for every entry (the lane response queues' answers: one
 * writer; their reorder queues before had one per shard).
 * The wasm loop stores each writer's data at its slot instead of evaluating every entry.
 */
export interface IndexedWrite {
  /** The entries, entry j at `regs[j]`. */
  regs: RegCell[];
  base: number;
  stride: number;
  width: number;
  /** The writers, the lowest priority first (the order their stores are made). */
  writers: { valid: NetId | null; slot: NetId; data: NetId }[];
}

/**
 * The banks of `IndexedWrite`: at least 4 entries of one width, one per bit of a decoder word
 * of at most 32 bits, no reset, at a constant distance in V, every entry's next value the same
 * priority chain over the same data; the writers' nets computed in the loop (not lifted away)
 * and not themselves entries of a bank.
 */
export function indexedWrites(
  d: Design,
  L: Layout,
  lift: LiftPlan | null,
  driver: ReadonlyMap<NetId, Cell> = driverMap(d),
): IndexedWrite[] {
  const width = (n: NetId): number => d.nets[n]!.width;
  const isConst = (n: NetId, v: bigint): boolean => {
    const c = driver.get(n);
    return c?.kind === 'const' && c.value === v;
  };
  const computed = (n: NetId): boolean => {
    const c = driver.get(n);
    return c === undefined || !(lift?.absorbed.has(c) ?? false);
  };
  type Decoder = { net: NetId; valid: NetId | null; slot: NetId };
  const decoder = (n: NetId): Decoder | null => {
    const D = width(n);
    if (D > 32 || D < 4 || (D & (D - 1)) !== 0) return null;
    let c = driver.get(n);
    let valid: NetId | null = null;
    if (c?.kind === 'mux' && isConst(c.whenFalse, 0n)) {
      valid = c.sel;
      c = driver.get(c.whenTrue);
    }
    if (c?.kind !== 'shift' || c.op !== 'shl' || !isConst(c.a, 1n) || 2 ** width(c.amount) !== D) return null;
    return { net: n, valid, slot: c.amount };
  };
  // The decoders ORed into an enable word, or null when it is not such an OR.
  const decodersOf = (n: NetId, into: Map<NetId, Decoder>): boolean => {
    const dec = decoder(n);
    if (dec) return (into.set(n, dec), true);
    const c = driver.get(n);
    return c?.kind === 'bitwise' && c.op === 'or' && decodersOf(c.a, into) && decodersOf(c.b, into);
  };
  // Entries by enable word.
  const groups = new Map<NetId, RegCell[]>();
  for (const c of d.cells) {
    if (c.kind !== 'reg' || c.rst !== null || c.en === null) continue;
    const e = driver.get(c.en);
    if (e?.kind !== 'slice' || width(c.en) !== 1) continue;
    const g = groups.get(e.a);
    if (g) g.push(c);
    else groups.set(e.a, [c]);
  }
  const banks: IndexedWrite[] = [];
  for (const [en, regs] of groups) {
    const D = width(en);
    const decs = new Map<NetId, Decoder>();
    if (regs.length !== D || !decodersOf(en, decs)) continue;
    const byIndex: RegCell[] = [];
    for (const r of regs) byIndex[(driver.get(r.en!) as { lo: number }).lo] = r;
    if (byIndex.filter(Boolean).length !== D) continue;
    const w = width(byIndex[0]!.out);
    const base = L.offset[byIndex[0]!.out]!;
    const stride = L.offset[byIndex[1]!.out]! - base;
    if (stride <= 0 || byIndex.some((r, j) => width(r.out) !== w || L.offset[r.out]! !== base + stride * j)) continue;
    // Each entry's chain: muxes on bit j of a decoder, highest priority first.
    let order: string | null = null;
    let writers: IndexedWrite['writers'] | null = null;
    for (const [j, r] of byIndex.entries()) {
      const chain: { dec: Decoder; data: NetId }[] = [];
      let x = r.d;
      for (;;) {
        const c = driver.get(x);
        const s = c?.kind === 'mux' ? driver.get(c.sel) : undefined;
        if (c?.kind !== 'mux' || s?.kind !== 'slice' || s.lo !== j || !decs.has(s.a)) break;
        if (chain.some((k) => k.dec.net === s.a)) break;
        chain.push({ dec: decs.get(s.a)!, data: c.whenTrue });
        x = c.whenFalse;
      }
      // The chain covers every decoder (its end is never taken: the entry is not enabled then),
      // or all but one, whose data its end is.
      const rest = [...decs.values()].filter((k) => !chain.some((c) => c.dec === k));
      if (rest.length > 1) break;
      if (rest.length === 1) chain.push({ dec: rest[0]!, data: x });
      const key = chain.map((c) => `${c.dec.net}:${c.data}`).join();
      if (order !== null && key !== order) break;
      order = key;
      if (j === D - 1) writers = chain.reverse().map((c) => ({ valid: c.dec.valid, slot: c.dec.slot, data: c.data }));
    }
    if (writers === null || writers.some((wr) => width(wr.data) !== w)) continue;
    if (writers.some((wr) => [wr.valid, wr.slot, wr.data].some((n) => n !== null && !computed(n)))) continue;
    banks.push({ regs: byIndex, base, stride, width: w, writers });
  }
  // A writer reading an entry of a bank (or testing a bit of one in place) would see the bank's
  // stores made before its own.
  const entries = new Set(banks.flatMap((b) => b.regs.map((r) => r.out)));
  const src = (n: NetId): NetId => {
    const c = driver.get(n);
    return c?.kind === 'slice' ? c.a : n;
  };
  return banks.filter(
    (b) =>
      !b.writers.some((wr) =>
        [wr.valid, wr.slot, wr.data].some((n) => n !== null && (entries.has(n) || entries.has(src(n)))),
      ),
  );
}

/**
 * The combinational cells whose values the loop reads: behind the outputs, the edges of the
 * registers (not entries of a bank) and memories, the banks' writers, read through a lifted word
 * where one replaces a concat, and only the index (and word) of an indexed select — its inner
 * muxes, and a bank's enables and priority chains, are not generated at all (left unread, their
 * loads of state were presumably kept by V8, as a load may trap).
 */
function liveCells(
  d: Design,
  o: {
    driver: ReadonlyMap<NetId, Cell>;
    indexed: ReadonlyMap<NetId, IndexedSelect>;
    banks: readonly IndexedWrite[];
    lift: LiftPlan | null;
  },
): Set<Cell> {
  const banked = new Set<Cell>(o.banks.flatMap((b) => b.regs));
  const live = new Set<Cell>();
  const todo: NetId[] = d.outputs.map((p) => p.net);
  for (const c of d.cells) if ((c.kind === 'reg' && !banked.has(c)) || c.kind === 'memory') todo.push(...cellInputs(c));
  for (const b of o.banks) for (const w of b.writers) todo.push(...(w.valid === null ? [] : [w.valid]), w.slot, w.data);
  while (todo.length) {
    const n = todo.pop()!;
    const c = o.driver.get(n);
    // A cell absorbed into a lifted word is read only through it (its sources are the word's).
    if (c === undefined || live.has(c) || c.kind === 'reg' || c.kind === 'memory' || o.lift?.absorbed.has(c)) continue;
    live.add(c);
    todo.push(...genReads(c, o.indexed, o.lift));
  }
  return live;
}

/**
 * The nets the loop's code for combinational cell c reads: an indexed select's index (and word;
 * a select of registers also loads them, see `bankReaders`), a lifted concat's parts and the
 * sources of its lifted words, else its inputs. (A select's condition, a register's enable and
 * a memory's enables that are a bit of another net are read in that net's word: `test`.)
 */
function genReads(c: Cell, indexed: ReadonlyMap<NetId, IndexedSelect>, lift: LiftPlan | null): NetId[] {
  const x = c.kind === 'mux' ? indexed.get(c.out) : undefined;
  if (x) return x.from === 'word' ? [x.idx, x.word] : [x.idx];
  const out = cellInputs(c);
  const liftNets = (parts: readonly Lift[]): void => {
    for (const p of parts)
      switch (p.k) {
        case 'bits':
          out.push(p.src);
          break;
        case 'mux':
          out.push(p.sel);
          liftNets(p.t);
          liftNets(p.f);
          break;
        case 'bitwise':
          liftNets(p.a);
          liftNets(p.b);
          break;
        case 'not':
          liftNets(p.a);
          break;
        case 'ones':
          break;
        default:
          assertNever(p);
      }
  };
  if (c.kind === 'concat') for (const w of lift?.words.get(c) ?? []) if (w) liftNets(w);
  return out;
}
