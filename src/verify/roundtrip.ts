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
import type {
  MemoryCheck,
  ResponseFields,
  SnapshotView,
  StreamModel,
  StreamProtocol,
  StreamRequest,
} from '../families/types.js';
import type { Design } from '../ir/types.js';
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

/** The three engines of a round trip: A (snapshot taken), B (restored) and C (never stopped). */
interface RoundTripEngines {
  d: Design;
  /** The AXI4-Stream wrapper, when the engines run it (options.axis). */
  wrapped: Design | null;
  A: Recorder;
  B: Recorder;
  C: Engine;
}

function roundTripEngines(f: Filter, axis: boolean | undefined): RoundTripEngines {
  const d = f.controlDesign();
  const wrapped = axis ? buildAxis(f, { control: true }) : null;
  const engine = (): Engine => (wrapped ? new AxisCoreView(f, new CompiledSim(wrapped)) : new CompiledSim(d));
  const A = new Recorder(engine());
  const B = new Recorder(engine());
  const C = engine();
  for (const e of [A, B, C]) e.reset();
  return { d, wrapped, A, B, C };
}

/**
 * The request stream's rows: every input but ctl_* and rst random each cycle, in_valid high four
 * cycles in five, out_ready seven in ten; aging and clear ops rare; keys from a range four times
 * the filter's capacity.
 */
function requestRows(f: Filter, d: Design, rng: Rng): () => Map<string, bigint> {
  const p = f.protocol();
  const ops = Object.entries(p.ops);
  const common = ops.filter(([n]) => !p.semantics[n]?.clears && !p.semantics[n]?.ages).map(([, c]) => c);
  const rare = ops.filter(([n]) => p.semantics[n]?.clears || p.semantics[n]?.ages).map(([, c]) => c);
  const keys = 4 * keysOf(f);
  const free = d.inputs.filter((q) => !q.name.startsWith('ctl_') && q.name !== 'rst');
  return () => {
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
}

/** Compares A's and B's core outputs and counters with C's, keeping the first ten mismatches. */
class OutputComparer {
  readonly mismatches: RoundTripMismatch[] = [];
  mismatchCount = 0;
  private readonly core: string[];
  private readonly counters: { name: string }[];
  constructor(
    f: Filter,
    d: Design,
    private readonly C: Engine,
  ) {
    this.core = f.design().outputs.map((q) => q.name);
    this.counters = controlMap(d).counters;
  }
  compare(x: Engine, engine: 'A' | 'B', cycle: number): void {
    const diff = (port: string, got: bigint, want: bigint): void => {
      if (got !== want && this.mismatchCount++ < 10) this.mismatches.push({ cycle, engine, port, got, want });
    };
    for (const port of this.core) diff(port, x.peek(port), this.C.peek(port));
    // The counters through ctl_rdata (ctl_rsel is combinational; set back to 0 before the edge).
    for (const c of this.counters) diff(c.name, readCounter(x, c.name), readCounter(this.C, c.name));
  }
}

interface TakenSnapshot {
  snap: Snapshot;
  takeCycles: number;
  restoreCycles: number;
}

/** At cycle `at`: A's snapshot taken, (tampered,) restored into B; both released. */
function snapshotAToB(x: RoundTripEngines, tamper: RoundTripOptions['tamper']): TakenSnapshot {
  const { A, B } = x;
  const before = A.rows.length;
  const snap = takeSnapshot(A);
  const takeCycles = A.rows.length - before;
  tamper?.(snap);
  restoreSnapshot(B, snap);
  release(A);
  release(B);
  return { snap, takeCycles, restoreCycles: B.rows.length };
}

/** The request stream into A and C from cycle 0 and into B from `at`, compared every cycle. */
function runRoundTripStream(
  x: RoundTripEngines,
  o: RoundTripOptions,
  row: () => Map<string, bigint>,
  cmp: OutputComparer,
): TakenSnapshot {
  const { A, B, C } = x;
  const apply = (e: Engine, r: Map<string, bigint>): void => {
    for (const [k, v] of r) e.poke(k, v);
  };
  let taken: TakenSnapshot | undefined;
  for (let t = 0; t < o.cycles; t++) {
    if (t === o.at) taken = snapshotAToB(x, o.tamper);
    const r = row();
    apply(A, r);
    apply(C, r);
    if (t >= o.at) apply(B, r);
    cmp.compare(A, 'A', t);
    if (t >= o.at) cmp.compare(B, 'B', t);
    A.step();
    C.step();
    if (t >= o.at) B.step();
  }
  return taken!;
}

/** Every block RAM word of A and B against C's. */
function compareMemoryWords(x: RoundTripEngines): { memoryWords: number; memoryMismatches: number } {
  const { A, B, C } = x;
  let memoryWords = 0;
  let memoryMismatches = 0;
  for (const m of x.d.cells)
    if (m.kind === 'memory')
      for (let a = 0; a < m.depth; a++) {
        memoryWords++;
        const want = C.readMemory(m.name, a);
        if (A.readMemory(m.name, a) !== want || B.readMemory(m.name, a) !== want) memoryMismatches++;
      }
  return { memoryWords, memoryMismatches };
}

export function roundTrip(f: Filter, o: RoundTripOptions): RoundTripResult {
  const x = roundTripEngines(f, o.axis);
  const row = requestRows(f, x.d, new Rng(o.seed));
  const cmp = new OutputComparer(f, x.d, x.C);
  if (!Number.isInteger(o.at) || o.at < 0 || o.at >= o.cycles)
    throw new Error(`roundTrip: at (${o.at}) must be a cycle below cycles (${o.cycles})`);
  const taken = runRoundTripStream(x, o, row, cmp);
  return {
    design: x.wrapped ? x.wrapped.name : x.d.name,
    snapshot: taken.snap,
    takeCycles: taken.takeCycles,
    restoreCycles: taken.restoreCycles,
    mismatches: cmp.mismatches,
    mismatchCount: cmp.mismatchCount,
    ...compareMemoryWords(x),
    requests: readCounter(x.C, 'requests'),
    stimulusA: x.A.rows,
    stimulusB: x.B.rows,
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
 * Drives the design with membership requests answered by a reference model, one cycle at a time,
 * and checks every response against the model's answer (and, once a loaded model answers, the
 * original model's answer against the loaded one's).
 */
class ModelStream {
  readonly sim: CompiledSim;
  readonly original: StreamModel;
  /** The model that answers: the original, then the one loaded from the snapshot. */
  private model: StreamModel;
  private loaded = false;
  private readonly p: StreamProtocol;
  private readonly rng: Rng;
  private readonly membership: string[];
  private readonly keys: number;
  private readonly tagMask: number;
  private readonly expected: { tag: number; want: ResponseFields; also: ResponseFields | null }[] = [];
  private pending: StreamRequest | null = null;
  readonly mismatches: string[] = [];
  mismatchCount = 0;
  modelDivergences = 0;
  sent = 0;

  constructor(
    private readonly f: Filter,
    seed: number,
  ) {
    this.p = f.protocol();
    this.sim = new CompiledSim(f.controlDesign());
    this.sim.reset();
    this.rng = new Rng(seed);
    const s = this.p.semantics;
    this.membership = Object.keys(this.p.ops).filter(
      (n) => (s[n]?.queries || s[n]?.inserts) && !s[n]?.clears && !s[n]?.ages && !s[n]?.removes,
    );
    this.keys = 4 * keysOf(f);
    this.tagMask = 2 ** f.config.tagBits - 1;
    this.original = f.model();
    this.model = this.original;
  }

  /** From now on the loaded model answers (the original one answers beside it). */
  load(m: StreamModel): void {
    this.model = m;
    this.loaded = true;
  }

  private next(): StreamRequest {
    const op = this.membership[Math.floor(this.rng.float() * this.membership.length)]!;
    return {
      op,
      key: BigInt(Math.floor(this.rng.float() * this.keys)),
      tag: this.sent & this.tagMask,
      fields: this.f.family.requestFields?.(this.f.config, this.rng) ?? {},
    };
  }

  private pokeRequest(req: StreamRequest | null): void {
    const { sim, p } = this;
    sim.poke('in_valid', req ? 1 : 0);
    if (!req) return;
    sim.poke('in_op', p.ops[req.op]!);
    sim.poke('in_key', req.key);
    sim.poke('in_tag', req.tag);
    for (const fd of p.request) sim.poke(fd.port, req.fields[fd.name] ?? 0n);
  }

  /** The response on the output port (out_valid and out_ready high) against the model's. */
  private checkResponse(): void {
    const { sim, p } = this;
    const e = this.expected.shift();
    const tag = Number(sim.peek('out_tag'));
    if (!e) {
      if (this.mismatchCount++ < 10) this.mismatches.push(`response with tag ${tag} to no request`);
      return;
    }
    const got = Object.fromEntries(p.response.map((fd) => [fd.name, sim.peek(fd.port)]));
    const bad = tag !== e.tag || p.response.some((fd) => got[fd.name] !== (e.want[fd.name] ?? 0n));
    if (bad && this.mismatchCount++ < 10)
      this.mismatches.push(
        `${this.loaded ? 'after' : 'before'} the snapshot, tag ${e.tag}: got tag ${tag} ${JSON.stringify(got, big)}, model ${JSON.stringify(e.want, big)}`,
      );
    if (e.also && p.response.some((fd) => (e.also![fd.name] ?? 0n) !== (e.want[fd.name] ?? 0n)))
      this.modelDivergences++;
  }

  /** One cycle: a request offered (or none), out_ready random, the response checked, an edge. */
  cycle(offer: boolean): void {
    const { sim } = this;
    if (offer && this.pending === null) this.pending = this.next();
    const req = offer ? this.pending : null;
    this.pokeRequest(req);
    const ready = this.rng.float() < 0.8;
    sim.poke('out_ready', ready ? 1 : 0);
    if (ready && sim.peek('out_valid') === 1n) this.checkResponse();
    if (req && sim.peek('in_ready') === 1n) {
      const want = this.model.apply(req);
      const also = this.loaded ? this.original.apply(req) : null;
      this.expected.push({ tag: req.tag, want, also });
      this.sent++;
      this.pending = null;
    }
    sim.step();
  }

  private limit(n: number): number {
    return 50 * n + 100 * this.p.maxStallCycles;
  }

  /** Requests until `total` have been accepted (`n` of them in this call, for the cycle limit). */
  sendUntil(total: number, n: number): void {
    for (let t = 0; this.sent < total; t++) {
      if (t > this.limit(n)) throw new Error(`modelRoundTrip: ${this.f.name} stopped accepting requests`);
      this.cycle(true);
    }
  }

  /** No requests until every response is out, then until the background work is done. */
  drain(): void {
    for (let t = 0; this.expected.length > 0; t++) {
      if (t > this.limit(1)) throw new Error(`modelRoundTrip: ${this.f.name} did not drain`);
      this.cycle(false);
    }
    for (let t = 0; t < this.p.maxStallCycles + this.p.latency; t++) this.cycle(false);
  }

  /** The hardware's counters after a few idle cycles (they lag the events by a cycle). */
  counted(): ModelRoundTripResult['counted'] {
    for (let t = 0; t < 4; t++) this.cycle(false);
    return {
      events: readCounter(this.sim, 'events'),
      requests: readCounter(this.sim, 'requests'),
      occupancy: readOccupancy(this.sim),
      sent: this.sent,
    };
  }
}

/** The snapshot taken from the drained design (left released) and loaded into a new model. */
function loadSnapshot(
  f: Filter,
  s: ModelStream,
  tamper: ((snap: Snapshot) => void) | undefined,
): { fromSnap: StreamModel; memory: MemoryCheck } {
  const snap = takeSnapshot(s.sim);
  release(s.sim);
  tamper?.(snap);
  const view = snapshotView(snap);
  const fromSnap = f.modelFromSnapshot(view);
  return { fromSnap, memory: fromSnap.compareMemories((m, a) => view.read(m, a)) };
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
  const s = new ModelStream(f, o.seed);
  const { original } = s;
  s.sendUntil(o.before, o.before);
  s.drain();
  // The original model's state at the snapshot, read before the tamper and the loaded model.
  const agingBefore = original.agingEvents();
  const occupancyAtSnapshot = original.occupancy?.() ?? null;
  const { fromSnap, memory } = loadSnapshot(f, s, o.tamper);
  const loadedAtSnapshot = fromSnap.occupancy?.() ?? null;
  s.load(fromSnap);
  s.sendUntil(o.before + o.after, o.after);
  s.drain();
  const memoryAtEnd = fromSnap.compareMemories((m, a) => s.sim.readMemory(m, a));
  return {
    before: o.before,
    after: o.after,
    mismatches: s.mismatches,
    mismatchCount: s.mismatchCount,
    memory,
    memoryAtEnd,
    modelDivergences: s.modelDivergences,
    agingBefore,
    agingAfter: fromSnap.agingEvents(),
    counted: s.counted(),
    modelEvents: original.agingEvents(),
    occupancy: {
      atSnapshot: { original: occupancyAtSnapshot, loaded: loadedAtSnapshot },
      atEnd: { original: original.occupancy?.() ?? null, loaded: fromSnap.occupancy?.() ?? null },
    },
  };
}

const big = (_: string, v: unknown): unknown => (typeof v === 'bigint' ? `0x${v.toString(16)}` : v);
