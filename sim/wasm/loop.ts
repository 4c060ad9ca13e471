/**
 * Emission of the WebAssembly cycle loop, `run(n, writeOut) -> collisions`, from its layout and
 * edge schedule: the prologue, each cycle (inputs, the combinational cells with the edges
 * scheduled after them, the outputs, the remaining edges, the swap of the two copies of V),
 * and the epilogue that leaves the state in V.
 */
import type { Cell } from '../../src/ir/types.js';
import { emitCell } from './cells.js';
import { emitEdge, emitResets } from './edges.js';
import { bin, K, load, OP, store, VOID } from './encode.js';
import type { LoopForms } from './forms.js';
import type { Edge, EdgeSchedule } from './schedule.js';
import type { CycleWriter } from './writer.js';

/** The parameters of `run`. */
const N = 0;
const WRITE_OUT = 1;

export function emitLoop(w: CycleWriter, order: readonly Cell[], forms: LoopForms, schedule: EdgeSchedule): void {
  const { f } = w;
  prologue(w, forms);
  f.emit(OP.block, VOID, OP.loop, VOID);
  f.emit(...f.get(w.cyc), OP.eqz, OP.brIf, 1);
  readInputs(w);
  emitEdges(w, schedule.first);
  for (const c of order) {
    w.pos++;
    if (c.kind !== 'const' && !forms.used.has(c)) continue;
    emitCell(w, c, forms.indexed);
    emitEdges(w, schedule.after.get(c) ?? []);
  }
  // State read more than once a cycle is loaded into its locals where it is first read (so the
  // local lives from there, not from the top of the cycle), and before the output block at the
  // latest (the block is conditional).
  w.loadUnreadState();
  writeOutputs(w);
  emitEdges(w, schedule.last);
  emitResets(w);
  nextCycle(w);
  f.emit(OP.br, 0, OP.end, OP.end);
  epilogue(w);
}

function emitEdges(w: CycleWriter, edges: readonly Edge[]): void {
  for (const e of edges) emitEdge(w, e);
}

/** The state is in V; the banks' entries in the other copy too. */
function prologue(w: CycleWriter, forms: LoopForms): void {
  const { f, plan } = w;
  f.set(w.cur, K(plan.v));
  f.set(w.nxt, K(plan.v2));
  for (const b of forms.banks)
    for (const r of b.regs)
      for (let i = 0; i < w.nw(r.out); i++) {
        const off = w.at(r.out, i);
        f.emit(...store(K(0), load(K(0), plan.v + off), plan.v2 + off));
      }
  f.set(w.cyc, f.get(N));
  f.set(w.ib, K(0));
  f.set(w.ob, K(0));
  f.set(w.collisions, K(0));
}

function readInputs(w: CycleWriter): void {
  w.d.inputs.forEach((p, k) => {
    for (let i = 0; i < w.nw(p.net); i++)
      w.def(p.net, i, load(w.f.get(w.ib), w.plan.stim + (w.L.inputOffsets[k]! + i) * 4));
  });
}

/** The outputs (pre-edge) into the output staging row, when `writeOut` is set. */
function writeOutputs(w: CycleWriter): void {
  const { f } = w;
  f.emit(...f.get(WRITE_OUT), OP.if, VOID);
  w.d.outputs.forEach((p, k) => {
    for (let i = 0; i < w.nw(p.net); i++)
      f.emit(...store(f.get(w.ob), w.val(p.net, i), w.plan.out + (w.L.outputOffsets[k]! + i) * 4));
  });
  f.emit(OP.end);
}

/** The next V becomes the current one; the staging rows advance. */
function nextCycle(w: CycleWriter): void {
  const { f } = w;
  const swap = f.local();
  f.set(swap, f.get(w.cur));
  f.set(w.cur, f.get(w.nxt));
  f.set(w.nxt, f.get(swap));
  f.set(w.ib, bin(OP.add, f.get(w.ib), K(w.L.inputWords * 4)));
  f.set(w.ob, bin(OP.add, f.get(w.ob), K(w.L.outputWords * 4)));
  f.set(w.cyc, bin(OP.sub, f.get(w.cyc), K(1)));
}

/** The state back to V (from the V that holds it); the collisions counted are the result. */
function epilogue(w: CycleWriter): void {
  const { f } = w;
  for (const n of w.state.nets)
    for (let i = 0; i < w.nw(n); i++) {
      const off = w.at(n, i);
      f.emit(...store(K(0), load(f.get(w.cur), off), w.plan.v + off));
    }
  f.emit(...f.get(w.collisions));
}
