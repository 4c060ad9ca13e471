/**
 * Forms of a design the WebAssembly cycle loop computes other than cell by cell: mux trees that
 * pick a field of a word or a register of a bank by an index (`indexedSelects`), banks of
 * registers written at decoded indices (`indexedWrites`), and, given those, the combinational
 * cells the loop reads at all (`liveCells`) and the nets each one's code reads (`genReads`).
 */
import { driverMap } from '../../src/ir/topo.js';
import { assertNever, cellInputs, type Cell, type Design, type NetId, type RegCell } from '../../src/ir/types.js';
import type { Layout } from '../codegen.js';
import type { Lift, LiftPlan } from '../lift.js';

/** What the loop computes, and in which forms. */
export interface LoopForms {
  driver: ReadonlyMap<NetId, Cell>;
  indexed: ReadonlyMap<NetId, IndexedSelect>;
  /** Banks written at decoded indices: their entries have no edge of their own. */
  banks: readonly IndexedWrite[];
  /** The registers of the banks. */
  banked: ReadonlySet<Cell>;
  /** The combinational cells whose values the loop reads (`liveCells`). */
  used: ReadonlySet<Cell>;
}

export function loopForms(d: Design, L: Layout, lift: LiftPlan | null): LoopForms {
  const driver = driverMap(d);
  const indexed = indexedSelects(d, L, lift, driver);
  const banks = indexedWrites(d, L, lift, driver);
  const banked = new Set<Cell>(banks.flatMap((b) => b.regs));
  const used = liveCells(d, { driver, indexed, banks, lift });
  return { driver, indexed, banks, banked, used };
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
export function liveCells(
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
export function genReads(c: Cell, indexed: ReadonlyMap<NetId, IndexedSelect>, lift: LiftPlan | null): NetId[] {
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
