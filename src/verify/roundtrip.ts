/**
 * The snapshot round trip, as `bloomforge snapshot` and the tests run it, on the design with the
 * control port: three compiled simulators driven by one random request stream (random op, key,
 * fields, tag, in_valid and out_ready every cycle; aging and clear ops rare).
 *   A runs to cycle `at`, is frozen, and its snapshot is taken through the port;
 *   B starts fresh (power-up) and the snapshot is written into it through the port;
 *   both are released and run the rest of the stream beside C, which never stops.
 * Every cycle after `at`, every output of the core and every counter of A and of B must equal C's
 * (before `at`, A's must too: the port is transparent while not frozen); at the end every block
 * RAM word of A and B must equal C's. The inputs A and B saw, control sequences included, are
 * kept as stimuli, so the same cycles can be replayed in Verilator and compared port by port.
 */
import { CompiledSim } from '../../sim/compiled.js';
import type { Engine, Stimulus } from '../../sim/engine.js';
import { keysOf } from './stream.js';
import type { Filter } from '../families/filter.js';
import { AxisCoreView, buildAxis } from '../ip/axis.js';
import type { MemoryCheck, ResponseFields, SnapshotView, StreamModel, StreamRequest } from '../families/types.js';
import { Rng } from '../util/rng.js';
import {
  controlMap,
  readCounter,
  readOccupancy,
  release,
  restoreSnapshot,
  takeSnapshot,
  type Snapshot,
} from './snapshot.js';

/** An engine that records the inputs of every cycle it steps (a stimulus runTrace can replay). */
export class Recorder implements Engine {
  readonly name: string;
  readonly rows: Stimulus = [];
  private readonly cur = new Map<string, bigint>();
  constructor(readonly inner: Engine) {
    this.name = `recorded ${inner.name}`;
  }
  get design() {
    return this.inner.design;
  }
  reset(): void {
    this.inner.reset();
    this.cur.clear();
    this.rows.length = 0;
  }
  poke(name: string, value: bigint | number): void {
    this.cur.set(name, BigInt(value));
    this.inner.poke(name, value);
  }
  peek(name: string): bigint {
    return this.inner.peek(name);
  }
  step(n = 1): void {
    for (let i = 0; i < n; i++) {
      this.rows.push(this.design.inputs.map((p) => this.cur.get(p.name) ?? 0n));
      this.inner.step();
    }
  }
  readMemory(name: string, addr: number): bigint {
    return this.inner.readMemory(name, addr);
  }
}

export interface RoundTripOptions {
  /** Cycles of the request stream. */
  cycles: number;
  /** The cycle at which A is frozen and its snapshot taken. */
  at: number;
  seed: number;
  /** Change the snapshot before it is restored (tests: a corrupted snapshot must be caught). */
  tamper?: (s: Snapshot) => void;
  /**
   * Run A, B and C as the AXI4-Stream wrapper with the control port (`--interface axis --control
   * regs`), driven through the core's port names (AxisCoreView); the stimuli are then the core
   * view's, not the wrapper's.
   */
  axis?: boolean;
}

export interface RoundTripMismatch {
  cycle: number;
  engine: 'A' | 'B';
  port: string;
  got: bigint;
  want: bigint;
}

export interface RoundTripResult {
  design: string;
  snapshot: Snapshot;
  /** Cycles the take and the restore spent frozen. */
  takeCycles: number;
  restoreCycles: number;
  mismatches: RoundTripMismatch[];
  mismatchCount: number;
  memoryWords: number;
  memoryMismatches: number;
  requests: bigint;
  /** What A and B saw, from power-up: replayable in Verilator (runTrace). */
  stimulusA: Stimulus;
  stimulusB: Stimulus;
}

export function roundTrip(f: Filter, o: RoundTripOptions): RoundTripResult {
  const d = f.controlDesign();
  const p = f.protocol();
  const wrapped = o.axis ? buildAxis(f, { control: true }) : null;
  const engine = (): Engine => (wrapped ? new AxisCoreView(f, new CompiledSim(wrapped)) : new CompiledSim(d));
  const A = new Recorder(engine());
  const B = new Recorder(engine());
  const C = engine();
  for (const e of [A, B, C]) e.reset();
  const rng = new Rng(o.seed);
  const ops = Object.entries(p.ops);
  const common = ops.filter(([n]) => !p.semantics[n]?.clears && !p.semantics[n]?.ages).map(([, c]) => c);
  const rare = ops.filter(([n]) => p.semantics[n]?.clears || p.semantics[n]?.ages).map(([, c]) => c);
  const keys = 4 * keysOf(f);
  const free = d.inputs.filter((q) => !q.name.startsWith('ctl_') && q.name !== 'rst');
  const row = (): Map<string, bigint> => {
    const r = new Map<string, bigint>();
    for (const q of free) {
      const w = d.nets[q.net]!.width;
      let v = 0n;
      for (let b = 0; b < w; b += 30) v |= BigInt(Math.floor(rng.float() * 2 ** Math.min(30, w - b))) << BigInt(b);
      r.set(q.name, v);
    }
    r.set('in_valid', rng.float() < 0.8 ? 1n : 0n);
    r.set('out_ready', rng.float() < 0.7 ? 1n : 0n);
    const list = rare.length > 0 && rng.float() < 0.002 ? rare : common;
    r.set('in_op', BigInt(list[Math.floor(rng.float() * list.length)]!));
    r.set('in_key', BigInt(Math.floor(rng.float() * keys)));
    return r;
  };
  const core = f.design().outputs.map((q) => q.name);
  const counters = controlMap(d).counters;
  const mismatches: RoundTripMismatch[] = [];
  let mismatchCount = 0;
  const compare = (x: Engine, engine: 'A' | 'B', cycle: number): void => {
    const diff = (port: string, got: bigint, want: bigint): void => {
      if (got !== want && mismatchCount++ < 10) mismatches.push({ cycle, engine, port, got, want });
    };
    for (const port of core) diff(port, x.peek(port), C.peek(port));
    // The counters through ctl_rdata (ctl_rsel is combinational; set back to 0 before the edge).
    for (const c of counters) diff(c.name, readCounter(x, c.name), readCounter(C, c.name));
  };
  const apply = (e: Engine, r: Map<string, bigint>): void => {
    for (const [k, v] of r) e.poke(k, v);
  };
  const state: { snap?: Snapshot; takeCycles: number; restoreCycles: number } = { takeCycles: 0, restoreCycles: 0 };
  if (!Number.isInteger(o.at) || o.at < 0 || o.at >= o.cycles)
    throw new Error(`roundTrip: at (${o.at}) must be a cycle below cycles (${o.cycles})`);
  for (let t = 0; t < o.cycles; t++) {
    if (t === o.at) {
      const before = A.rows.length;
      const snap = takeSnapshot(A);
      const takeCycles = A.rows.length - before;
      o.tamper?.(snap);
      restoreSnapshot(B, snap);
      release(A);
      release(B);
      Object.assign(state, { snap, takeCycles, restoreCycles: B.rows.length });
    }
    const r = row();
    apply(A, r);
    apply(C, r);
    if (t >= o.at) apply(B, r);
    compare(A, 'A', t);
    if (t >= o.at) compare(B, 'B', t);
    A.step();
    C.step();
    if (t >= o.at) B.step();
  }
  let memoryWords = 0;
  let memoryMismatches = 0;
  for (const m of d.cells)
    if (m.kind === 'memory')
      for (let a = 0; a < m.depth; a++) {
        memoryWords++;
        const want = C.readMemory(m.name, a);
        if (A.readMemory(m.name, a) !== want || B.readMemory(m.name, a) !== want) memoryMismatches++;
      }
  return {
    design: wrapped ? wrapped.name : d.name,
    snapshot: state.snap!,
    takeCycles: state.takeCycles,
    restoreCycles: state.restoreCycles,
    mismatches,
    mismatchCount,
    memoryWords,
    memoryMismatches,
    requests: readCounter(C, 'requests'),
    stimulusA: A.rows,
    stimulusB: B.rows,
  };
}

export interface ModelRoundTripResult {
  /** Requests answered before and after the snapshot. */
  before: number;
  after: number;
  /** Responses that differ from the model's answer (before: the fresh model; after: the loaded one). */
  mismatches: string[];
  mismatchCount: number;
  /** The loaded model's memories against the snapshot's block RAM words. */
  memory: MemoryCheck;
  /**
   * The loaded model's memories against the design's block RAMs at the end (drained, background
   * work done): the state the loaded model reached equals the hardware's, not only its answers.
   */
  memoryAtEnd: MemoryCheck;
  /** Answers where the loaded model and the original model (never stopped) differ. */
  modelDivergences: number;
  /** Aging events (shifts, wraps) of the original model before the snapshot, of the loaded one after. */
  agingBefore: number;
  agingAfter: number;
  /** The hardware's counters and occupancy estimate at the end (ctl_rdata), and the requests sent. */
  counted: { events: bigint; requests: bigint; occupancy: bigint; sent: number };
  /** Aging events of the original model over the whole stream (= the hardware's event count). */
  modelEvents: number;
  /**
   * The occupancy estimate (StreamModel.occupancy; null where a model has none) of the original
   * model and of the loaded one, at the snapshot and at the end (the hardware's is
   * `counted.occupancy`).
   */
  occupancy: {
    atSnapshot: { original: number | null; loaded: number | null };
    atEnd: { original: number | null; loaded: number | null };
  };
}

/** A snapshot as a family loader reads it. */
export function snapshotView(s: Snapshot): SnapshotView {
  const regs = new Map(s.registers.map((r) => [r.name, BigInt('0x' + r.value)]));
  const mems = new Map(s.memories.map((m) => [m.name, m.words]));
  return {
    reg(name) {
      const v = regs.get(name);
      if (v === undefined) throw new Error(`snapshot: no register '${name}'`);
      return v;
    },
    read(memory, addr) {
      const w = mems.get(memory)?.[addr];
      if (w === undefined) throw new Error(`snapshot: no word ${memory}[${addr}]`);
      return BigInt('0x' + w);
    },
    counter(name) {
      const r = (x: string): bigint => this.reg(`ctl_${name}_${x}`);
      const H = 16n;
      const M = (1n << 32n) - 1n;
      if (name === 'occupancy') {
        if (r('clr') === 1n) return 0n;
        const hi = (r('hi') + r('cy_up') - r('cy_down')) & ((1n << H) - 1n);
        return (((hi << H) | r('lo')) + r('up') - r('down')) & M;
      }
      const hi = (r('hi') + r('cy')) & ((1n << H) - 1n);
      return (((hi << H) | r('lo')) + r('ev')) & M;
    },
  };
}

/**
 * The snapshot into the reference model: membership requests (one offered every cycle, out_ready
 * high four cycles in five) answered by the model; after `before` of them the stream stops, the
 * pipeline drains and its background work finishes (the protocol's maxStallCycles), the snapshot is
 * taken through the port and loaded into a new model (the family's `fromSnapshot`); the design is
 * released and `after` more requests are answered by the loaded model — and by the original one,
 * which must agree.
 */
export function modelRoundTrip(
  f: Filter,
  o: { before: number; after: number; seed: number; tamper?: (s: Snapshot) => void },
): ModelRoundTripResult {
  const d = f.controlDesign();
  const p = f.protocol();
  const sim = new CompiledSim(d);
  sim.reset();
  const rng = new Rng(o.seed);
  const membership = Object.keys(p.ops).filter(
    (n) =>
      (p.semantics[n]?.queries || p.semantics[n]?.inserts) &&
      !p.semantics[n]?.clears &&
      !p.semantics[n]?.ages &&
      !p.semantics[n]?.removes,
  );
  const keys = 4 * keysOf(f);
  const tagMask = 2 ** f.config.tagBits - 1;
  const original = f.model();
  let model: StreamModel = original;
  const expected: { tag: number; want: ResponseFields; also: ResponseFields | null }[] = [];
  const mismatches: string[] = [];
  let mismatchCount = 0;
  let modelDivergences = 0;
  let sent = 0;
  let loaded = false;
  let pending: StreamRequest | null = null;
  const next = (): StreamRequest => {
    const op = membership[Math.floor(rng.float() * membership.length)]!;
    return {
      op,
      key: BigInt(Math.floor(rng.float() * keys)),
      tag: sent & tagMask,
      fields: f.family.requestFields?.(f.config, rng) ?? {},
    };
  };
  const cycle = (offer: boolean): void => {
    if (offer && pending === null) pending = next();
    const req = offer ? pending : null;
    sim.poke('in_valid', req ? 1 : 0);
    if (req) {
      sim.poke('in_op', p.ops[req.op]!);
      sim.poke('in_key', req.key);
      sim.poke('in_tag', req.tag);
      for (const fd of p.request) sim.poke(fd.port, req.fields[fd.name] ?? 0n);
    }
    const ready = rng.float() < 0.8;
    sim.poke('out_ready', ready ? 1 : 0);
    if (ready && sim.peek('out_valid') === 1n) {
      const e = expected.shift();
      const tag = Number(sim.peek('out_tag'));
      if (!e) {
        if (mismatchCount++ < 10) mismatches.push(`response with tag ${tag} to no request`);
      } else {
        const got = Object.fromEntries(p.response.map((fd) => [fd.name, sim.peek(fd.port)]));
        const bad = tag !== e.tag || p.response.some((fd) => got[fd.name] !== (e.want[fd.name] ?? 0n));
        if (bad && mismatchCount++ < 10)
          mismatches.push(
            `${loaded ? 'after' : 'before'} the snapshot, tag ${e.tag}: got tag ${tag} ${JSON.stringify(got, big)}, model ${JSON.stringify(e.want, big)}`,
          );
        if (e.also && p.response.some((fd) => (e.also![fd.name] ?? 0n) !== (e.want[fd.name] ?? 0n))) modelDivergences++;
      }
    }
    if (req && sim.peek('in_ready') === 1n) {
      const want = model.apply(req);
      const also = loaded ? original.apply(req) : null;
      expected.push({ tag: req.tag, want, also });
      sent++;
      pending = null;
    }
    sim.step();
  };
  const limit = (n: number): number => 50 * n + 100 * p.maxStallCycles;
  for (let t = 0; sent < o.before; t++) {
    if (t > limit(o.before)) throw new Error(`modelRoundTrip: ${f.name} stopped accepting requests`);
    cycle(true);
  }
  for (let t = 0; expected.length > 0; t++) {
    if (t > limit(1)) throw new Error(`modelRoundTrip: ${f.name} did not drain`);
    cycle(false);
  }
  for (let t = 0; t < p.maxStallCycles + p.latency; t++) cycle(false);
  const snap = takeSnapshot(sim);
  release(sim);
  const agingBefore = original.agingEvents();
  const occupancyAtSnapshot = original.occupancy?.() ?? null;
  o.tamper?.(snap);
  const view = snapshotView(snap);
  const fromSnap = f.modelFromSnapshot(view);
  const memory = fromSnap.compareMemories((m, a) => view.read(m, a));
  const loadedAtSnapshot = fromSnap.occupancy?.() ?? null;
  model = fromSnap;
  loaded = true;
  const total = o.before + o.after;
  for (let t = 0; sent < total; t++) {
    if (t > limit(o.after)) throw new Error(`modelRoundTrip: ${f.name} stopped accepting requests`);
    cycle(true);
  }
  for (let t = 0; expected.length > 0; t++) {
    if (t > limit(1)) throw new Error(`modelRoundTrip: ${f.name} did not drain`);
    cycle(false);
  }
  for (let t = 0; t < p.maxStallCycles + p.latency; t++) cycle(false);
  const memoryAtEnd = fromSnap.compareMemories((m, a) => sim.readMemory(m, a));
  return {
    before: o.before,
    after: o.after,
    mismatches,
    mismatchCount,
    memory,
    memoryAtEnd,
    modelDivergences,
    agingBefore,
    agingAfter: fromSnap.agingEvents(),
    // The counters lag the events by a cycle: read them after a few idle cycles.
    counted: (() => {
      for (let t = 0; t < 4; t++) cycle(false);
      return {
        events: readCounter(sim, 'events'),
        requests: readCounter(sim, 'requests'),
        occupancy: readOccupancy(sim),
        sent,
      };
    })(),
    modelEvents: original.agingEvents(),
    occupancy: {
      atSnapshot: { original: occupancyAtSnapshot, loaded: loadedAtSnapshot },
      atEnd: { original: original.occupancy?.() ?? null, loaded: fromSnap.occupancy?.() ?? null },
    },
  };
}

const big = (_: string, v: unknown): unknown => (typeof v === 'bigint' ? `0x${v.toString(16)}` : v);
