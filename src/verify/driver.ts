/**
 * The one-lane stream driver: offers random requests on the plain stream, advances the clock, and
 * hands every response to the scoreboard and every accepted request to the model (and the window
 * oracle), with random back-pressure, idle cycles and reset pulses. `driveSteps` (stream.ts) runs it.
 */
import type { Filter } from '../families/filter.js';
import type { ResponseFields, StreamModel, StreamProtocol } from '../families/types.js';
import { uniformWorkload } from '../model/workloads.js';
import { Rng } from '../util/rng.js';
import { Bench } from './bench.js';
import { WindowOracle } from './oracle.js';
import { PortMap, StreamLane } from './ports.js';
import { ReadyRandomiser } from './ready.js';
import { pickerOf, RequestSource, type Fields } from './requests.js';
import { ResetInjector } from './reset.js';
import { formatResponse, Mismatches, sameResponse, Scoreboard } from './scoreboard.js';
import { keysOf, PROGRESS_CYCLES, type DriveOptions, type DriveResult, type ResponseMismatch } from './options.js';

/** What the scoreboard keeps of an accepted request: the model's answer. */
interface Expected {
  index: number;
  kind: string;
  tag: number;
  fields: ResponseFields;
}

const DRIVEN = ['in_valid', 'in_op', 'in_key', 'in_tag', 'out_ready', 'rst'];

export class StreamDriver {
  private readonly p: StreamProtocol;
  private readonly bench: Bench;
  private readonly lane: StreamLane;
  private readonly rng: Rng;
  private readonly source: RequestSource;
  private readonly idle: ReadyRandomiser;
  private readonly ready: ReadyRandomiser;
  private readonly reset: ResetInjector;
  private readonly board = new Scoreboard<Expected>();
  private readonly oracle: WindowOracle | null;
  private readonly mismatches = new Mismatches<ResponseMismatch>();
  private readonly res: DriveResult;
  private model: StreamModel;
  private agingBefore = 0; // aging events of the models replaced at resets
  /** The longest a healthy pipeline goes without accepting or answering. */
  private readonly quietLimit: number;
  private lastProgress = 0;
  private sweepDone = false;
  private drain = -1; // idle cycles left after the last response (-1: not draining yet)

  constructor(
    private readonly f: Filter,
    private readonly o: DriveOptions,
  ) {
    const design = o.design ?? f.design();
    const p = (this.p = f.protocol());
    const c = f.config;
    this.bench = new Bench(design, { record: o.record });
    this.model = f.model();
    const rng = (this.rng = new Rng(o.seed));
    const mix = o.mix ?? f.verifyMix();
    const pick = pickerOf(mix, p.ops, rng);
    this.oracle = o.exactWindow ? this.windowOracle(mix) : null;
    const workload = o.workload ?? uniformWorkload(c.keyBits, 4 * keysOf(f));
    const fields = (r: Rng): Fields<unknown> => {
      const custom = o.hooks?.request?.(r);
      return custom ? { fields: custom.fields, note: custom.note } : { fields: f.requestFields(r), note: undefined };
    };
    this.source = new RequestSource(rng, pick, workload, fields, 2 ** c.tagBits - 1);
    const ports = new PortMap(design, this.bench.sim.layout, '(stream protocol)');
    this.lane = new StreamLane(ports, p);
    const rstAt = ports.inputs.get('rst')?.at ?? null;
    if (o.resetRate && rstAt === null) throw new Error(`design '${design.name}' has no rst input (resetRate)`);
    for (const q of design.inputs)
      if (!DRIVEN.includes(q.name) && !this.lane.fields.some((x) => x.fd.port === q.name))
        throw new Error(`design '${design.name}' has an input '${q.name}' the stream protocol does not drive`);
    this.reset = new ResetInjector(rng, o.resetRate ?? 0, rstAt);
    const bp = o.backpressure ?? 0;
    this.idle = new ReadyRandomiser(rng, o.idle ?? 0);
    this.ready = new ReadyRandomiser(rng, bp);
    // A sweep, the pipeline and the queue, back-pressure that holds out_ready low and idle
    // cycles (geometric: 64 expected gaps each).
    this.quietLimit =
      p.maxStallCycles + p.latency + p.queueDepth + Math.ceil(64 / (1 - bp)) + Math.ceil(64 / (1 - (o.idle ?? 0)));
    this.res = {
      design,
      sim: this.bench.sim,
      model: this.model,
      ops: 0,
      cycles: 0,
      stallCycles: 0,
      firstAccept: -1,
      lastAccept: -1,
      responses: 0,
      finished: false,
      stopReason: null,
      mismatches: this.mismatches.first,
      mismatchCount: 0,
      window: this.oracle?.counts ?? null,
      agingEvents: 0,
      resets: 0,
      lostToReset: 0,
      trace: null,
    };
  }

  /** The run as a generator: yields every PROGRESS_CYCLES cycles. */
  *steps(): Generator<void, DriveResult, void> {
    const res = this.res;
    for (;;) {
      if (this.drain < 0 && this.lane.issued >= this.o.ops && !this.lane.pending && !this.board.outstanding)
        this.drain = this.p.latency;
      if (this.drain === 0) {
        res.finished = true;
        break;
      }
      if (this.bench.cycles - this.lastProgress > this.quietLimit && this.drain < 0) {
        res.stopReason =
          `no progress for ${this.bench.cycles - this.lastProgress} cycles (limit ${this.quietLimit}): ` +
          `${res.ops} of ${this.o.ops} requests accepted, ${res.responses} responses, ${this.board.outstanding} outstanding`;
        break;
      }
      if (this.reset.due(this.sweepDone && this.drain < 0)) this.resetCycle();
      else this.cycle();
      res.cycles = this.bench.cycles;
      if (res.cycles % PROGRESS_CYCLES === 0) {
        this.report();
        yield;
      }
    }
    this.report();
    res.mismatchCount = this.mismatches.count;
    res.agingEvents = this.agingBefore + this.model.agingEvents();
    res.trace = this.bench.trace();
    return res;
  }

  private windowOracle(mix: Record<string, number>): WindowOracle {
    const window = this.f.window();
    if (window === null) throw new Error(`${this.f.family.id}: exactWindow needs a filter with a window`);
    WindowOracle.checkMix(this.p, mix);
    return new WindowOracle(window, this.f.slack());
  }

  private report(): void {
    this.o.onProgress?.({ accepted: this.res.ops, responses: this.res.responses, cycles: this.res.cycles });
  }

  /** A reset pulse: nothing is handed over in this cycle, everything in flight is lost. */
  private resetCycle(): void {
    this.reset.pulse(this.bench);
    this.res.resets++;
    this.res.lostToReset += this.board.lose();
    this.agingBefore += this.model.agingEvents();
    this.model = this.res.model = this.f.model();
    this.oracle?.clear();
    this.sweepDone = false;
    this.lastProgress = this.bench.cycles;
  }

  /** One cycle of the stream: offer, settle, take a response and a request, step. */
  private cycle(): void {
    const { lane, bench } = this;
    if (this.drain < 0 && !lane.pending && lane.issued < this.o.ops && this.idle.ready()) {
      const { req, note } = this.source.next(lane.issued);
      lane.put(req, note);
    }
    lane.drive(bench.row, this.drain < 0 && !this.ready.ready() ? 0 : 1);
    bench.evaluate();
    const inReady = (bench.out[lane.inReady]! & 1) === 1;
    if (inReady) this.sweepDone = true;
    if (lane.responds(bench.row, bench.out)) this.respond();
    if (lane.pending) {
      if (inReady) this.accept();
      else if (this.sweepDone) this.res.stallCycles++;
    }
    bench.step();
    if (this.drain > 0) this.drain--;
  }

  /** The response against the oldest outstanding request's model answer. */
  private respond(): void {
    const { tag, got } = this.lane.response(this.bench.out);
    const want = this.board.answer();
    const fields = this.p.response;
    this.res.responses++;
    this.lastProgress = this.bench.cycles;
    if (!want)
      this.mismatches.add({
        op: -1,
        kind: 'unexpected',
        expected: 'no response',
        got: formatResponse(fields, tag, got),
      });
    else if (!sameResponse(fields, want, tag, got))
      this.mismatches.add({
        op: want.index,
        kind: want.kind,
        expected: formatResponse(fields, want.tag, want.fields),
        got: formatResponse(fields, tag, got),
      });
  }

  /** The request taken: the model answers it now, the oracle scores it. */
  private accept(): void {
    const { req, index, note } = this.lane.take();
    const fields = this.model.apply(req);
    this.oracle?.accept(req, this.p.semantics[req.op] ?? {}, fields, note, this.o.hooks);
    this.board.accept({ index, kind: req.op, tag: req.tag, fields });
    const res = this.res;
    if (res.firstAccept < 0) res.firstAccept = this.bench.cycles;
    res.lastAccept = this.bench.cycles;
    this.lastProgress = this.bench.cycles;
    res.ops++;
  }
}
