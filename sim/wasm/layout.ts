/**
 * State layout of the WebAssembly cycle loop: where every array lives in the simulator's
 * WebAssembly.Memory (`planMemory`), which nets are state (kept in the two copies of V rather
 * than in locals), which of those a cycle keeps in locals, and which 1-bit nets are tested in
 * place in another net's word.
 */
import { cellInputs, type Cell, type Design, type NetId, type RegCell } from '../../src/ir/types.js';
import { words, type Layout } from '../codegen.js';
import type { LiftPlan } from '../lift.js';
import type { LoopForms } from './forms.js';

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

/** Where the loop keeps the state (register outputs, memory read data) and how it reads bits. */
export interface StateLayout {
  /** The state nets, in cell order. */
  nets: NetId[];
  isState: ReadonlySet<NetId>;
  /**
   * State read more than once a cycle: loaded into locals where first read (a load per read
   * costs more than keeping it); the rest is loaded where it is read.
   */
  inLocals: ReadonlySet<NetId>;
  /**
   * A select's condition that is a bit of another net is tested in that net's word (an AND with
   * a constant, which x86 fuses with the test of the select) rather than shifted down and masked
   * first; the slice is still generated, and left unread unless read elsewhere.
   */
  bitOf: ReadonlyMap<NetId, { a: NetId; lo: number }>;
}

export function stateLayout(d: Design, forms: LoopForms, lift: LiftPlan | null): StateLayout {
  const W = (n: NetId): number => d.nets[n]!.width;
  const nets = d.cells.flatMap((c) => (c.kind === 'reg' ? [c.out] : c.kind === 'memory' ? [c.rdData] : []));
  const isState = new Set<NetId>(nets);
  const absorbed = (n: NetId): boolean => lift?.absorbed.has(forms.driver.get(n)!) ?? false;
  const bitOf = new Map<NetId, { a: NetId; lo: number }>();
  for (const c of d.cells)
    if (c.kind === 'slice' && W(c.out) === 1 && !absorbed(c.a)) bitOf.set(c.out, { a: c.a, lo: c.lo });
  return { nets, isState, inLocals: readMoreThanOnce(d, forms, isState), bitOf };
}

/** The state nets read more than once a cycle, in the order of their first read. */
function readMoreThanOnce(d: Design, forms: LoopForms, isState: ReadonlySet<NetId>): Set<NetId> {
  const { banked, used, banks } = forms;
  const reads = new Map<NetId, number>();
  const count = (n: NetId | null): void => {
    if (n !== null && isState.has(n)) reads.set(n, (reads.get(n) ?? 0) + 1);
  };
  for (const c of d.cells)
    if (c.kind === 'memory' || (c.kind === 'reg' && !banked.has(c)) || used.has(c))
      for (const n of cellInputs(c)) count(n);
  for (const r of d.cells.filter((c): c is RegCell => c.kind === 'reg'))
    if (r.en !== null && !banked.has(r)) count(r.out);
  for (const b of banks) for (const w of b.writers) [w.valid, w.slot, w.data].forEach(count);
  for (const p of d.outputs) count(p.net);
  const out = new Set<NetId>();
  for (const [n, k] of reads) if (k > 1) out.add(n);
  return out;
}
