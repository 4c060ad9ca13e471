/**
 * Verification of an N-lane filter (src/lanes/): random requests on every lane with random idle
 * cycles and random out<i>_ready, on the compiled simulator, then
 *   - each lane's responses come in its request order (tags), exactly once;
 *   - the sequence numbers (unwrapped) number the executed ops 0..n−1 with no gap or repeat, and
 *     increase along each lane (the linear order is consistent with every lane's order);
 *   - every answer equals the sharded model's (src/lanes/model.ts) replaying that order;
 *   - the block RAMs equal the model's memories at the end;
 *   - optionally the same input rows on Verilator give the same outputs, every port, every cycle.
 */
import type { LaneFilter } from '../lanes/filter.js';
import type { ResponseFields, StreamRequest } from '../families/types.js';
import { Rng } from '../util/rng.js';
import { comparePacked, type Comparison } from '../../sim/cosim/compare.js';
import { runVerilatorPacked } from '../../sim/cosim/verilator.js';
import { keyOfIndex, listWorkload, uniformWorkload, zipfWorkload, type Workload } from '../model/workloads.js';
import { Bench } from './bench.js';
import { replayLinearOrder, SeqUnwrapper, type Answered } from './linearOrder.js';
import { lanePort, PortMap, StreamLane, type Slot } from './ports.js';
import { fromWords } from '../../sim/words.js';
import { ReadyRandomiser } from './ready.js';
import { checkOp, pickerOf, RequestSource, type Fields } from './requests.js';
import { ResetInjector } from './reset.js';
import { Mismatches, Scoreboard } from './scoreboard.js';

export type LaneWorkload = 'uniform' | 'hot' | { zipf: number };

export interface LaneDriveOptions {
  /** Requests per lane. */
  opsPerLane: number;
  seed: number;
  /** Probability that out<i>_ready is low in a cycle. */
  backpressure?: number;
  /** Probability that a lane offers no request in a cycle (when it has none waiting). */
  idle?: number;
  /** Op weights (default: the family's verify mix). */
  mix?: Record<string, number>;
  /** Keys: uniform over a pool, Zipf over a pool, or one hot key for every lane. */
  workload?: LaneWorkload;
  /** Distinct keys of the pool (default 4 × the window). */
  keys?: number;
  /** Keep the input and output rows (for Verilator). */
  record?: boolean;
  /** Skip the model and memory checks (throughput runs). */
  throughputOnly?: boolean;
  /** Keep the answered ops in the linear order in the result (debugging). */
  keepOrder?: boolean;
  /** Every lane's last request is this op (so the run's last op in the linear order is one). */
  lastOp?: string;
}

export interface LaneDriveResult {
  cycles: number;
  /** Ops accepted (all lanes) and answered. */
  ops: number;
  responses: number;
  /**
   * Steady state: cycles from the first response (the pipeline full, the power-up sweep over) to
   * the last accepted request, and the ops accepted in them per cycle.
   */
  busyCycles: number;
  opsPerCycle: number;
  mismatches: string[];
  mismatchCount: number;
  /** The block RAMs against the model's, in the family's unit (words, timers). */
  memory: { checked: number; unit: string; count: number; mismatches: string[] } | null;
  agingEvents: number;
  stim: Uint32Array | null;
  out: Uint32Array | null;
  finished: boolean;
  /** The answered ops in the linear order, each with its reported scan step (with keepOrder). */
  order?: { seq: number; lane: number; req: StreamRequest; got: ResponseFields; scan: boolean }[];
  /** Block RAM words of the simulator at the end (with keepOrder). */
  readMemory?: (memory: string, addr: number) => bigint;
}

/**
 * Distinct keys a lane run ranges over by default: 4 × the window (4 × 1024 without one; a set
 * filter: 4 × its capacity), at least 64.
 */
export function laneKeyPool(lf: LaneFilter): number {
  const w = lf.base.window();
  return Math.max(64, 4 * (w !== null && Number.isFinite(w) ? w : (lf.base.capacity() ?? 1024)));
}

/** The key stream of a lane workload over `pool` distinct keys. */
export function laneKeySource(w: LaneWorkload, pool: number, keyBits: number): Workload {
  if (w === 'hot') return listWorkload([keyOfIndex(0, keyBits, 1)]);
  if (w === 'uniform') return uniformWorkload(keyBits, pool);
  return zipfWorkload(keyBits, pool, w.zipf);
}

export function driveLanes(lf: LaneFilter, o: LaneDriveOptions): LaneDriveResult {
  return new LaneDriver(lf, o).run();
}

/** One lane of the N: its ports and request, its source of requests and its in-flight requests. */
interface Lane {
  io: StreamLane;
  source: RequestSource;
  board: Scoreboard<StreamRequest>;
  lastSeq: number;
  /** out<i>_seq: the op's place in the linear order (SEQ_BITS wide). */
  outSeq: Slot;
  /** out<i>_scan: a scan step (global time) follows the op in the linear order. */
  outScan: number | null;
}

/**
 * The N-lane driver: the one-lane parts (request offering, ready randomiser, scoreboard) once per
 * lane, the sequence numbers read off every response, and the sharded model replaying the linear
 * order at the end.
 */
class LaneDriver {
  private readonly bench: Bench;
  private readonly lanes: Lane[];
  private readonly idle: ReadyRandomiser;
  private readonly ready: ReadyRandomiser;
  private readonly seqs = new SeqUnwrapper();
  private readonly answered: Answered[] = [];
  private readonly mismatches = new Mismatches<string>();
  private readonly quietLimit: number;
  private firstResponse = -1;
  private steadyOps = 0;
  private lastAccept = -1;
  private ops = 0;
  private responses = 0;

  constructor(
    private readonly lf: LaneFilter,
    private readonly o: LaneDriveOptions,
  ) {
    const d = lf.design();
    this.bench = new Bench(d, { record: o.record });
    const p = lf.shard.protocol();
    const rng = new Rng(o.seed);
    const ports = new PortMap(d, this.bench.sim.layout);
    const pickOp = pickerOf(o.mix ?? lf.base.verifyMix(), p.ops, rng);
    checkOp(p, o.lastOp, 'lastOp', lf.name);
    const workload = laneKeySource(o.workload ?? 'uniform', o.keys ?? laneKeyPool(lf), lf.base.config.keyBits);
    const tagMask = 2 ** lf.base.config.tagBits - 1;
    const fields = (r: Rng): Fields<unknown> => ({
      fields: lf.base.requestFields(r),
      note: undefined,
    });
    this.lanes = Array.from({ length: lf.lanes }, (_, i) => ({
      io: new StreamLane(ports, p, lanePort(i)),
      source: new RequestSource(rng, pickOp, workload, fields, tagMask, true),
      board: new Scoreboard<StreamRequest>(),
      lastSeq: -1,
      outSeq: ports.output(`out${i}_seq`),
      outScan: ports.outputs.get(`out${i}_scan`)?.at ?? null,
    }));
    // Reset for one cycle, then run.
    const rstAt = ports.inputs.get('rst')?.at ?? null;
    if (rstAt !== null) new ResetInjector(rng, 0, rstAt).pulse(this.bench);
    const bp = o.backpressure ?? 0;
    const idle = o.idle ?? 0;
    this.idle = new ReadyRandomiser(rng, idle, true);
    this.ready = new ReadyRandomiser(rng, bp, true);
    this.quietLimit =
      p.maxStallCycles + lf.latency() + 64 * lf.lanes + Math.ceil(64 / (1 - bp)) + Math.ceil(64 / (1 - idle));
  }

  run(): LaneDriveResult {
    const { o, bench } = this;
    let quiet = 0;
    const done = (l: Lane): boolean => l.io.issued === o.opsPerLane && !l.io.pending && !l.board.outstanding;
    while (!this.lanes.every(done)) {
      for (const l of this.lanes) this.offer(l);
      bench.evaluate();
      let progress = false;
      this.lanes.forEach((l, i) => {
        if (this.accept(l)) progress = true;
        if (l.io.responds(bench.row, bench.out)) {
          progress = true;
          this.respond(l, i);
        }
      });
      bench.step();
      quiet = progress ? 0 : quiet + 1;
      if (quiet > this.quietLimit) {
        this.mismatches.add(`stuck: no request accepted or answered for ${quiet} cycles (cycle ${bench.cycles})`);
        break;
      }
    }
    return this.result();
  }

  /** A new request when the lane has none waiting (unless idle), then this cycle's inputs. */
  private offer(l: Lane): void {
    const { io } = l;
    const n = this.o.opsPerLane;
    if (!io.pending && io.issued < n && this.idle.ready()) {
      const last = this.o.lastOp !== undefined && io.issued === n - 1 ? this.o.lastOp : undefined;
      const { req, note } = l.source.next(io.issued, last);
      io.put(req, note);
    }
    io.drive(this.bench.row, this.ready.ready() ? 1 : 0);
  }

  private accept(l: Lane): boolean {
    if (!l.io.accepts(this.bench.out)) return false;
    l.board.accept(l.io.take().req);
    this.ops++;
    if (this.firstResponse >= 0) this.steadyOps++;
    this.lastAccept = this.bench.cycles;
    return true;
  }

  /** A response: in the lane's order (tag), its sequence number after the lane's last. */
  private respond(l: Lane, i: number): void {
    const { bench, mismatches } = this;
    const cycle = bench.cycles;
    if (this.firstResponse < 0) this.firstResponse = cycle;
    this.responses++;
    const req = l.board.answer();
    const { tag, got } = l.io.response(bench.out);
    if (!req) {
      mismatches.add(`cycle ${cycle} lane ${i}: a response (tag ${tag}) with no request in flight`);
      return;
    }
    if (tag !== req.tag) mismatches.add(`cycle ${cycle} lane ${i}: response tag ${tag}, expected ${req.tag}`);
    const seq = this.seqs.unwrap(Number(fromWords(bench.out, l.outSeq.at, l.outSeq.width)));
    if (seq <= l.lastSeq) mismatches.add(`lane ${i}: seq ${seq} after ${l.lastSeq} (the order must follow the lane's)`);
    l.lastSeq = seq;
    this.answered.push({ seq, lane: i, req, got, scan: l.outScan !== null && bench.out[l.outScan] === 1 });
  }

  private result(): LaneDriveResult {
    const { o, bench, mismatches } = this;
    // Every op answered; background work may still run (a clear's sweep of the shards' banks, which
    // answers as it starts): idle cycles, every lane ready for its answers, long enough for any
    // memory to be swept word by word, before the memories are compared.
    if (!o.throughputOnly && mismatches.count === 0) {
      const settle = Math.max(0, ...bench.sim.layout.memories.map((mem) => mem.depth)) + 64;
      for (const l of this.lanes) l.io.drive(bench.row, 1);
      for (let c = 0; c < settle; c++) bench.plainCycle();
    }
    const finished = mismatches.count === 0;
    const busyCycles =
      this.firstResponse < 0 || this.lastAccept < this.firstResponse ? 0 : this.lastAccept - this.firstResponse + 1;
    const replay = o.throughputOnly
      ? null
      : replayLinearOrder(this.lf, this.answered, bench.sim, (s) => mismatches.add(s));
    const trace = bench.trace();
    const res: LaneDriveResult = {
      cycles: bench.cycles,
      ops: this.ops,
      responses: this.responses,
      busyCycles,
      opsPerCycle: busyCycles ? this.steadyOps / busyCycles : 0,
      mismatches: mismatches.first,
      mismatchCount: mismatches.count,
      memory: replay?.memory ?? null,
      agingEvents: replay?.agingEvents ?? 0,
      stim: trace?.stim ?? null,
      out: trace?.out ?? null,
      finished,
    };
    if (o.keepOrder) {
      res.order = this.answered;
      res.readMemory = (name, addr) => bench.sim.readMemory(name, addr);
    }
    return res;
  }
}

/** The recorded input rows on Verilator, compared with the simulator's outputs every cycle. */
export async function laneCosim(lf: LaneFilter, r: LaneDriveResult): Promise<Comparison> {
  if (!r.stim || !r.out) throw new Error('laneCosim: drive with record: true');
  const d = lf.design();
  const vl = await runVerilatorPacked(d, r.stim, r.cycles);
  return comparePacked(d, ['ts', 'verilator'], r.out, vl, r.cycles);
}
