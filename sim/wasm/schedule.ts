/**
 * Edge schedule of the WebAssembly cycle loop: where in the cycle each register's, memory's and
 * bank's clock edge is emitted. An edge goes right after the combinational cell that computes
 * the last of the nets it reads (its next value is stored into the next V there, so those nets
 * need not stay live to the end of the cycle); an edge whose nets are not all computed in the
 * loop runs at the clock edge, after the output block.
 */
import {
  cellInputs,
  cellOutput,
  type Cell,
  type Design,
  type MemoryCell,
  type NetId,
  type RegCell,
} from '../../src/ir/types.js';
import { words, type Layout } from '../codegen.js';
import type { LiftPlan } from '../lift.js';
import { genReads, type IndexedWrite, type LoopForms } from './forms.js';
import type { StateLayout } from './layout.js';

/** One clock edge: of memory k, of a register (not an entry of a bank), or a bank's writes. */
export type Edge =
  { kind: 'memory'; m: MemoryCell; k: number } | { kind: 'reg'; r: RegCell } | { kind: 'bank'; b: IndexedWrite };

export interface EdgeSchedule {
  /** The edges ready once the inputs are read, before any cell. */
  first: Edge[];
  /** The edges ready once a cell is computed, emitted after it. */
  after: ReadonlyMap<Cell, Edge[]>;
  /** The edges at the clock edge, after the output block. */
  last: Edge[];
}

/** An edge and the nets it waits for. */
interface Pending {
  edge: Edge;
  inputs: NetId[];
}

/**
 * Each edge counts the nets it still waits for and is listed under each of them; a net's
 * definition counts down its waiters, so the edges are found without scanning every pending edge
 * after every cell. The edges that become ready after a cell are emitted in their list order.
 */
export function scheduleEdges(
  d: Design,
  L: Layout,
  order: readonly Cell[],
  forms: LoopForms,
  state: StateLayout,
  lift: LiftPlan | null,
): EdgeSchedule {
  const { pending, late } = edgeList(d, L, forms, state, lift);
  const ready = new Set<NetId>([...d.inputs.map((p) => p.net), ...state.nets]);
  const waits = pending.map(() => 0);
  const waiters = new Map<NetId, number[]>();
  const first: Edge[] = [];
  pending.forEach((e, k) => {
    for (const n of new Set(e.inputs)) {
      if (ready.has(n)) continue;
      waits[k]!++;
      const w = waiters.get(n);
      if (w) w.push(k);
      else waiters.set(n, [k]);
    }
    if (waits[k] === 0) first.push(e.edge);
  });
  const after = new Map<Cell, Edge[]>();
  for (const c of order) {
    // The cells the loop computes: the constants (substituted where read) and the live cells,
    // not those absorbed into a lifted word.
    if ((c.kind !== 'const' && !forms.used.has(c)) || lift?.absorbed.has(c)) continue;
    const n = cellOutput(c);
    const due: number[] = [];
    for (const k of waiters.get(n) ?? []) if (--waits[k]! === 0) due.push(k);
    waiters.delete(n);
    if (due.length > 0)
      after.set(
        c,
        due.sort((a, b) => a - b).map((k) => pending[k]!.edge),
      );
  }
  const last = pending.filter((_, k) => waits[k]! > 0).map((e) => e.edge);
  return { first, after, last: [...last, ...late] };
}

/**
 * The edges in their order (memories, registers, banks) with the nets each waits for; `late`:
 * the banks read by an output port or by another edge, which write after every edge.
 */
function edgeList(
  d: Design,
  L: Layout,
  forms: LoopForms,
  state: StateLayout,
  lift: LiftPlan | null,
): { pending: Pending[]; late: Edge[] } {
  const regs = d.cells.filter((c): c is RegCell => c.kind === 'reg' && !forms.banked.has(c));
  const pending: Pending[] = [
    ...L.memories.map((m, k): Pending => ({ edge: { kind: 'memory', m, k }, inputs: cellInputs(m) })),
    ...regs.map((r): Pending => ({
      edge: { kind: 'reg', r },
      inputs: [r.d, r.out, ...(r.en === null ? [] : [r.en]), ...(r.rst === null ? [] : [r.rst])],
    })),
  ];
  const late: Edge[] = [];
  // A bank's writes wait for its writers' nets and for every cell reading one of its entries
  // (an indexed select of them among them).
  for (const b of forms.banks) {
    const readers = bankReaders(d, L, b, forms, state, lift);
    const nets = b.writers.flatMap((w) => [...(w.valid === null ? [] : [w.valid]), w.slot, w.data]);
    if (readers === null) late.push({ kind: 'bank', b });
    else pending.push({ edge: { kind: 'bank', b }, inputs: [...nets, ...readers] });
  }
  return { pending, late };
}

/**
 * The nets computed by the generated cells that read an entry of bank b — through their
 * inputs, a bit of an entry tested in place (`test`), a lifted word's sources, or as an indexed
 * select (its index or word an entry, or registers whose words include an entry's) — or null
 * when an output port or the edge of a register or memory reads an entry (then its writes wait
 * for every edge).
 */
function bankReaders(
  d: Design,
  L: Layout,
  b: IndexedWrite,
  forms: LoopForms,
  state: StateLayout,
  lift: LiftPlan | null,
): NetId[] | null {
  const entries = new Set(b.regs.map((r) => r.out));
  const entryWords = new Set(
    b.regs.flatMap((r) => Array.from({ length: words(d.nets[r.out]!.width) }, (_, i) => L.offset[r.out]! + i)),
  );
  const readsEntry = (ns: readonly NetId[]): boolean =>
    ns.some((n) => entries.has(n) || entries.has(state.bitOf.get(n)?.a ?? -1));
  if (readsEntry(d.outputs.map((p) => p.net))) return null;
  for (const c of d.cells)
    if ((c.kind === 'memory' || (c.kind === 'reg' && !forms.banked.has(c))) && readsEntry(cellInputs(c))) return null;
  const out: NetId[] = [];
  for (const c of d.cells) {
    if (!forms.used.has(c)) continue;
    const x = c.kind === 'mux' ? forms.indexed.get(c.out) : undefined;
    const loadsEntry =
      x?.from === 'state' &&
      Array.from({ length: 2 ** x.idxBits }, (_, k) => x.base + x.stride * k).some((o) =>
        Array.from({ length: words(x.width) }, (_, i) => o + i).some((w) => entryWords.has(w)),
      );
    if (loadsEntry || readsEntry(genReads(c, forms.indexed, lift))) out.push(cellOutput(c));
  }
  return out;
}
