/**
 * The stream driver and scoreboard every family is verified with.
 *
 * It drives a filter pipeline in the compiled simulator with a random stream of requests through
 * the family's stream protocol (valid/ready on both sides, random idle cycles and back-pressure),
 * gives every accepted request to the family's reference model, and checks every response
 * (tag and every response field, in request order) against the model's answer. It runs exactly
 * the ops asked for: it keeps going until every request has been accepted and every response
 * received, then idles `latency` more cycles so no write is still in flight when memories are
 * compared. A run that stops making progress (no request accepted and no response given for
 * longer than the protocol allows) stops with `finished = false` and the reason.
 *
 * Optionally it records the packed stimulus and outputs of every cycle (for Verilator, Icarus
 * and VCDs), and checks answers against the exact window (no false negative where the family
 * promises none; false positives counted).
 *
 * The simulator runs with poisoned read-during-write collisions, so a pipeline that relied on
 * undefined block RAM behaviour fails the comparison with the model.
 */
import type { Filter } from '../families/filter.js';
import type { DriveHooks, ResponseFields, StreamModel, StreamRequest } from '../families/types.js';
import type { Design } from '../ir/types.js';
import { ExactWindow } from '../model/window.js';
import { Rng } from '../util/rng.js';
import { CompiledSim } from '../../sim/compiled.js';
import { fromWords, toWords } from '../../sim/words.js';
import { uniformWorkload, type Workload } from '../model/workloads.js';

export interface DriveOptions {
  ops: number;
  seed: number;
  /** Probability that out_ready is low in a cycle. */
  backpressure?: number;
  /** Probability that in_valid is low in a cycle when a request could be sent (an idle cycle). */
  idle?: number;
  /** Relative weights of the ops (default: the family's verification mix). */
  mix?: Record<string, number>;
  /** Default: uniform over 4 · window keys (4096 without a window). */
  workload?: Workload;
  /** Record the packed stimulus and outputs of every cycle. */
  record?: boolean;
  /** Check answers against the exact window (no op that ages without inserting in the mix). */
  exactWindow?: boolean;
  /** A different build of the same family (e.g. with forwarding off, to show the checks catch it). */
  design?: Design;
  hooks?: DriveHooks;
  /**
   * Probability per cycle of a one-cycle reset pulse (`rst` high, in_valid and out_ready low)
   * once the power-up sweep is done. Every response outstanding at the pulse is lost (the
   * pipeline is cleared): counted in `lostToReset`, and a response for one of them afterwards is a
   * mismatch. The model and the exact window start again empty, as the hardware does.
   */
  resetRate?: number;
  /** Called every PROGRESS_CYCLES cycles and at the end. */
  onProgress?: (p: { accepted: number; responses: number; cycles: number }) => void;
}

export interface ResponseMismatch {
  /** Index of the request in the stream (-1: a response nobody asked for). */
  op: number;
  kind: string;
  expected: string;
  got: string;
}

export interface WindowCounts {
  /** Queried keys inserted within the last `window` inserts, and those not reported. */
  inWindow: number;
  falseNegatives: number;
  /** Queried keys inserted between window and window + slack inserts ago, and those reported. */
  slackTested: number;
  slackHits: number;
  /** Queried keys outside window + slack, and those reported. */
  negatives: number;
  falsePositives: number;
}

export interface PackedTrace {
  /** Rows of the design's inputs (layout.inputWords words each). */
  stim: Uint32Array;
  /** Rows of the design's outputs (layout.outputWords words each). */
  out: Uint32Array;
  cycles: number;
}

export interface DriveResult {
  design: Design;
  sim: CompiledSim;
  model: StreamModel;
  /** Requests accepted (= the ops asked for when finished). */
  ops: number;
  cycles: number;
  /** Cycles with a request waiting and in_ready low, after the power-up sweep. */
  stallCycles: number;
  /** Cycles of the first and the last accepted request. */
  firstAccept: number;
  lastAccept: number;
  responses: number;
  /** Every request accepted and answered, and the pipeline drained. */
  finished: boolean;
  stopReason: string | null;
  /** The first few response mismatches; `mismatchCount` counts all. */
  mismatches: ResponseMismatch[];
  mismatchCount: number;
  window: WindowCounts | null;
  agingEvents: number;
  /** Reset pulses given mid-stream (resetRate), and the accepted requests they cut off unanswered. */
  resets: number;
  lostToReset: number;
  trace: PackedTrace | null;
}

/** Keys a stream should range over to exercise the filter: its window, else its capacity, else 1024. */
export function keysOf(f: Filter): number {
  const w = f.window();
  if (w !== null && Number.isFinite(w)) return w;
  return f.capacity() ?? 1024;
}

/** Cycles between progress reports (and event-loop turns for the async driver). */
export const PROGRESS_CYCLES = 16384;

/** A Uint32Array that grows by doubling (a row per cycle: the trace of a run). */
export class Grow {
  buf: Uint32Array;
  length = 0;
  constructor(initial: number) {
    this.buf = new Uint32Array(Math.max(16, initial));
  }
  push(row: Uint32Array): void {
    const n = row.length;
    if (this.length + n > this.buf.length) {
      const next = new Uint32Array(Math.max(this.buf.length * 2, this.length + n));
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
    }
    // A row is a few words: a plain loop costs less than TypedArray.set's call per cycle.
    const buf = this.buf;
    const at = this.length;
    for (let i = 0; i < n; i++) buf[at + i] = row[i]!;
    this.length = at + n;
  }
  /** The rows pushed, without a copy (call once, at the end: the buffer is not written again). */
  done(): Uint32Array {
    return this.buf.subarray(0, this.length);
  }
}

export function pickerOf(mix: Record<string, number>, ops: Readonly<Record<string, number>>, rng: Rng): () => string {
  const names = Object.keys(mix).filter((n) => mix[n]! > 0);
  for (const n of names)
    if (!(n in ops)) throw new Error(`mix: '${n}' is not an op of this filter (${Object.keys(ops).join(', ')})`);
  if (names.length === 0) throw new Error('mix: no op has a positive weight');
  const total = names.reduce((s, n) => s + mix[n]!, 0);
  return () => {
    let r = rng.float() * total;
    for (const n of names) if ((r -= mix[n]!) < 0) return n;
    return names[names.length - 1]!;
  };
}

/** The driver as a generator: yields every PROGRESS_CYCLES cycles (see runSteps / runStepsAsync). */
export function* driveSteps(f: Filter, o: DriveOptions): Generator<void, DriveResult, void> {
  const design = o.design ?? f.design();
  const p = f.protocol();
  const c = f.config;
  const sim = new CompiledSim(design, { poisonCollisions: true });
  let model = f.model();
  let agingBefore = 0; // aging events of the models replaced at resets
  const rng = new Rng(o.seed);
  const mix = o.mix ?? f.verifyMix();
  const pick = pickerOf(mix, p.ops, rng);
  const window = f.window();
  const slack = f.slack();
  if (o.exactWindow) {
    if (window === null) throw new Error(`${f.family.id}: exactWindow needs a filter with a window`);
    const aging = Object.keys(mix).find((n) => mix[n]! > 0 && (p.semantics[n]?.ages || p.semantics[n]?.removes));
    if (aging) throw new Error(`exactWindow: '${aging}' ages or removes without inserting; leave it out of the mix`);
  }
  const exact = o.exactWindow ? new ExactWindow(window!) : null;
  const withSlack = o.exactWindow ? new ExactWindow(window! + slack) : null;
  const workload = o.workload ?? uniformWorkload(c.keyBits, 4 * keysOf(f));
  const tagMask = 2 ** c.tagBits - 1;

  // Port positions in the packed rows.
  const L = sim.layout;
  const inAt = new Map(
    design.inputs.map((q, i) => [q.name, { at: L.inputOffsets[i]!, width: design.nets[q.net]!.width }]),
  );
  const outAt = new Map(
    design.outputs.map((q, i) => [q.name, { at: L.outputOffsets[i]!, width: design.nets[q.net]!.width }]),
  );
  const port = <T>(m: Map<string, T>, name: string): T => {
    const x = m.get(name);
    if (!x) throw new Error(`design '${design.name}' has no port '${name}' (stream protocol)`);
    return x;
  };
  const pValid = port(inAt, 'in_valid').at;
  const pOp = port(inAt, 'in_op').at;
  const pKey = port(inAt, 'in_key');
  const pTag = port(inAt, 'in_tag').at;
  const pReady = port(inAt, 'out_ready').at;
  const pFields = p.request.map((fd) => ({ fd, ...port(inAt, fd.port) }));
  const qInReady = port(outAt, 'in_ready').at;
  const qOutValid = port(outAt, 'out_valid').at;
  const qTag = port(outAt, 'out_tag').at;
  const qFields = p.response.map((fd) => ({ fd, ...port(outAt, fd.port) }));
  const pRst = inAt.get('rst')?.at ?? null;
  if (o.resetRate && pRst === null) throw new Error(`design '${design.name}' has no rst input (resetRate)`);
  for (const q of design.inputs)
    if (
      !['in_valid', 'in_op', 'in_key', 'in_tag', 'out_ready', 'rst'].includes(q.name) &&
      !pFields.some((x) => x.fd.port === q.name)
    )
      throw new Error(`design '${design.name}' has an input '${q.name}' the stream protocol does not drive`);

  const row = new Uint32Array(L.inputWords);
  const out = new Uint32Array(L.outputWords);
  const stimRec = o.record ? new Grow(L.inputWords * 1024) : null;
  const outRec = o.record ? new Grow(L.outputWords * 1024) : null;
  const fmt = (tag: number, r: ResponseFields): string =>
    [`tag ${tag}`, ...p.response.map((fd) => `${fd.name} ${r[fd.name] ?? 'missing'}`)].join(' ');

  interface Pending {
    req: StreamRequest;
    index: number;
    note: unknown;
    /** The key's and fields' words at their row offsets, formed when first offered. */
    words: { at: number; words: Uint32Array }[] | null;
  }
  const expected: { index: number; kind: string; tag: number; fields: ResponseFields }[] = [];
  let head = 0; // expected[head] is the oldest outstanding response
  const res: DriveResult = {
    design,
    sim,
    model,
    ops: 0,
    cycles: 0,
    stallCycles: 0,
    firstAccept: -1,
    lastAccept: -1,
    responses: 0,
    finished: false,
    stopReason: null,
    mismatches: [],
    mismatchCount: 0,
    window: exact
      ? { inWindow: 0, falseNegatives: 0, slackTested: 0, slackHits: 0, negatives: 0, falsePositives: 0 }
      : null,
    agingEvents: 0,
    resets: 0,
    lostToReset: 0,
    trace: null,
  };
  const mismatch = (m: ResponseMismatch): void => {
    if (res.mismatches.length < 20) res.mismatches.push(m);
    res.mismatchCount++;
  };
  // The longest a healthy pipeline goes without accepting or answering: a sweep, the pipeline
  // and the queue, back-pressure that holds out_ready low and idle cycles (geometric: 64 expected gaps each).
  const bp = o.backpressure ?? 0;
  const quietLimit =
    p.maxStallCycles + p.latency + p.queueDepth + Math.ceil(64 / (1 - bp)) + Math.ceil(64 / (1 - (o.idle ?? 0)));
  let lastProgress = 0;
  let pending: Pending | null = null;
  let issued = 0;
  let sweepDone = false;
  let drain = -1; // idle cycles left after the last response (-1: not draining yet)
  const report = (): void => o.onProgress?.({ accepted: res.ops, responses: res.responses, cycles: res.cycles });

  for (;;) {
    const outstanding = expected.length - head;
    if (drain < 0 && issued >= o.ops && pending === null && outstanding === 0) drain = p.latency;
    if (drain === 0) {
      res.finished = true;
      break;
    }
    if (res.cycles - lastProgress > quietLimit && drain < 0) {
      res.stopReason =
        `no progress for ${res.cycles - lastProgress} cycles (limit ${quietLimit}): ` +
        `${res.ops} of ${o.ops} requests accepted, ${res.responses} responses, ${outstanding} outstanding`;
      break;
    }
    if (o.resetRate && sweepDone && drain < 0 && rng.float() < o.resetRate) {
      // A reset pulse: nothing is handed over in this cycle, everything in flight is lost.
      row.fill(0);
      row[pRst!] = 1;
      sim.pokeRow(row);
      if (stimRec) {
        sim.peekRow(out);
        stimRec.push(row);
        outRec!.push(out);
      }
      sim.step();
      res.cycles++;
      res.resets++;
      res.lostToReset += expected.length - head;
      expected.length = 0;
      head = 0;
      agingBefore += model.agingEvents();
      model = f.model();
      res.model = model;
      exact?.clear();
      withSlack?.clear();
      sweepDone = false;
      lastProgress = res.cycles;
      if (res.cycles % PROGRESS_CYCLES === 0) {
        report();
        yield;
      }
      continue;
    }
    if (drain < 0 && !pending && issued < o.ops && !(o.idle && rng.float() < o.idle)) {
      const op = pick();
      const key = workload.nextKey(rng);
      const custom = o.hooks?.request?.(rng);
      const fields = custom ? custom.fields : f.requestFields(rng);
      pending = { req: { op, key, tag: issued & tagMask, fields }, index: issued, note: custom?.note, words: null };
      issued++;
    }
    const outReady = drain < 0 && bp > 0 && rng.float() < bp ? 0 : 1;
    row.fill(0);
    if (pending) {
      row[pValid] = 1;
      row[pOp] = p.ops[pending.req.op]!;
      // The key and fields as words once per request (a stalled request is offered every cycle).
      const req = pending.req;
      pending.words ??= [
        { at: pKey.at, words: toWords(req.key, pKey.width) },
        ...pFields.map((x) => ({ at: x.at, words: toWords(req.fields[x.fd.name] ?? 0n, x.width) })),
      ];
      for (const w of pending.words) row.set(w.words, w.at);
      row[pTag] = req.tag;
    }
    row[pReady] = outReady;
    sim.pokeRow(row);
    sim.peekRow(out);
    const inReady = (out[qInReady]! & 1) === 1;
    const outValid = (out[qOutValid]! & 1) === 1;
    if (inReady) sweepDone = true;
    if (stimRec) {
      stimRec.push(row);
      outRec!.push(out);
    }
    if (outValid && outReady) {
      const tag = out[qTag]!;
      const got: ResponseFields = {};
      for (const x of qFields) got[x.fd.name] = fromWords(out, x.at, x.width);
      const want = head < expected.length ? expected[head++] : undefined;
      res.responses++;
      lastProgress = res.cycles;
      if (!want) mismatch({ op: -1, kind: 'unexpected', expected: 'no response', got: fmt(tag, got) });
      else if (want.tag !== tag || p.response.some((fd) => want.fields[fd.name] !== got[fd.name]))
        mismatch({ op: want.index, kind: want.kind, expected: fmt(want.tag, want.fields), got: fmt(tag, got) });
      if (head > 4096 && head * 2 > expected.length) {
        expected.splice(0, head);
        head = 0;
      }
    }
    if (pending) {
      if (inReady) {
        const { req, index, note } = pending;
        const sem = p.semantics[req.op] ?? {};
        const fields = model.apply(req);
        if (exact && sem.queries) {
          const w = res.window!;
          const hit = fields.hit === 1n;
          const truth = exact.has(req.key);
          if (truth) {
            w.inWindow++;
            if (!hit) w.falseNegatives++;
          } else if (withSlack!.has(req.key)) {
            w.slackTested++;
            if (hit) w.slackHits++;
          } else {
            w.negatives++;
            if (hit) w.falsePositives++;
          }
          o.hooks?.scored?.(fields, truth, note);
        }
        if (exact && sem.inserts) {
          exact.insert(req.key);
          withSlack!.insert(req.key);
        }
        if (exact && sem.clears) {
          exact.clear();
          withSlack!.clear();
        }
        expected.push({ index, kind: req.op, tag: req.tag, fields });
        if (res.firstAccept < 0) res.firstAccept = res.cycles;
        res.lastAccept = res.cycles;
        lastProgress = res.cycles;
        res.ops++;
        pending = null;
      } else if (sweepDone) res.stallCycles++;
    }
    sim.step();
    res.cycles++;
    if (drain > 0) drain--;
    if (res.cycles % PROGRESS_CYCLES === 0) {
      report();
      yield;
    }
  }
  report();
  res.agingEvents = agingBefore + model.agingEvents();
  if (stimRec) res.trace = { stim: stimRec.done(), out: outRec!.done(), cycles: res.cycles };
  return res;
}

/** Runs the whole stream synchronously. */
export function drive(f: Filter, o: DriveOptions): DriveResult {
  const it = driveSteps(f, o);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
  }
}

/** The same, turning the event loop every PROGRESS_CYCLES cycles (long runs in test workers, progress bars). */
export async function driveAsync(f: Filter, o: DriveOptions): Promise<DriveResult> {
  const it = driveSteps(f, o);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
