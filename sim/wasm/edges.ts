/**
 * The clock edges of the WebAssembly cycle loop: each register's next value and each memory's
 * read data are stored into the next V (the current V is not written during the cycle), a
 * memory's write goes to its region, a bank's writers store at their slots, and the synchronous
 * resets are applied after every edge.
 */
import { assertNever, type MemoryCell, type NetId, type RegCell } from '../../src/ir/types.js';
import { words, wordMask } from '../codegen.js';
import { and, bin, K, load, OP, or, sel, shl, store, VOID, xor, type Ex } from './encode.js';
import type { IndexedWrite } from './forms.js';
import type { Edge } from './schedule.js';
import type { CycleWriter } from './writer.js';

export function emitEdge(w: CycleWriter, e: Edge): void {
  switch (e.kind) {
    case 'memory':
      return emitMemory(w, e.m, e.k);
    case 'reg':
      return emitReg(w, e.r);
    case 'bank':
      return emitBank(w, e.b);
    default:
      assertNever(e);
  }
}

/** Register r's edge: its next value into the next V; a reset's value is applied after all. */
function emitReg(w: CycleWriter, r: RegCell): void {
  const { f } = w;
  if (r.rst !== null && !w.resets.has(r.rst)) {
    const pre = f.local();
    f.set(pre, w.val(r.rst, 0));
    w.resets.set(r.rst, { pre, assign: [] });
  }
  for (let i = 0; i < w.nw(r.out); i++) {
    let e = w.val(r.d, i);
    if (r.en !== null) e = sel(w.test(r.en), e, w.val(r.out, i));
    f.emit(...store(f.get(w.nxt), e, w.at(r.out, i)));
    if (r.rst !== null) {
      const rv = Number((r.resetValue >> BigInt(32 * i)) & 0xffffffffn) | 0;
      w.resets.get(r.rst)!.assign.push({ net: r.out, i, rv });
    }
  }
}

/** Synchronous resets after the edge: one test per reset net (rarely taken). */
export function emitResets(w: CycleWriter): void {
  const { f } = w;
  for (const { pre, assign } of w.resets.values()) {
    f.emit(...f.get(pre), OP.if, VOID);
    for (const a of assign) f.emit(...store(f.get(w.nxt), K(a.rv), w.at(a.net, a.i)));
    f.emit(OP.end);
  }
}

/** Memory k's edge: read the old word(s) into the next V, then write. */
function emitMemory(w: CycleWriter, m: MemoryCell, k: number): void {
  const { f } = w;
  const ww = words(m.width);
  const base = w.plan.mems[k]!;
  const stride = ww * 4;
  const addr = (a: NetId): Ex =>
    (stride & (stride - 1)) === 0 ? shl(w.val(a, 0), Math.log2(stride)) : bin(OP.mul, w.val(a, 0), K(stride));
  // The DSL makes every memory's depth 2^(address width), so no address is out of range and
  // the load and store run every cycle, the enables selecting values.
  for (const a of [m.rdAddr, m.wrAddr])
    if (2 ** w.W(a) !== m.depth)
      throw new Error(`memory '${m.name}': a ${w.W(a)}-bit address for depth ${m.depth} (expected 2^width)`);
  const undef = m.readDuringWrite === 'undefined';
  const coll = f.local();
  if (undef) {
    f.set(coll, and(and(bin(OP.eq, w.val(m.wrAddr, 0), w.val(m.rdAddr, 0)), w.val(m.rdEn, 0)), w.val(m.wrEn, 0)));
    f.set(w.collisions, bin(OP.add, f.get(w.collisions), f.get(coll)));
  }
  for (let i = 0; i < ww; i++) {
    let e = load(addr(m.rdAddr), base + i * 4);
    if (undef && w.poison) e = xor(e, and(K(wordMask(m.width, i) | 0), bin(OP.sub, K(0), f.get(coll))));
    f.emit(...store(f.get(w.nxt), sel(w.test(m.rdEn), e, w.val(m.rdData, i)), w.at(m.rdData, i)));
  }
  const merged = (i: number, old: Ex): Ex => {
    const data = w.val(m.wrData, i);
    if (m.wrMask === null) return data;
    const mk = w.val(m.wrMask, i);
    return or(and(old, xor(mk, K(-1))), and(data, mk));
  };
  for (let i = 0; i < ww; i++) {
    const off = base + i * 4;
    const old = f.local();
    f.set(old, load(addr(m.wrAddr), off));
    f.emit(...store(addr(m.wrAddr), sel(w.test(m.wrEn), merged(i, f.get(old)), f.get(old)), off));
  }
}

/**
 * Bank b's writes into both copies of V (so an entry not written keeps its value in both), the
 * lowest priority first; a writer not writing stores into the sink.
 */
function emitBank(w: CycleWriter, b: IndexedWrite): void {
  const { f } = w;
  for (const wr of b.writers) {
    const at = f.local();
    f.set(at, bin(OP.add, K(b.base * 4), bin(OP.mul, w.val(wr.slot, 0), K(b.stride * 4))));
    for (const area of [w.cur, w.nxt]) {
      const here = bin(OP.add, f.get(area), f.get(at));
      const addr = wr.valid === null ? here : sel(w.test(wr.valid), here, K(w.plan.sink));
      const a = f.local();
      f.set(a, addr);
      for (let i = 0; i < words(b.width); i++) f.emit(...store(f.get(a), w.val(wr.data, i), i * 4));
    }
  }
}
