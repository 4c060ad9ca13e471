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
import { SEQ_BITS } from '../lanes/rtl.js';
import type { ResponseFields, StreamRequest } from '../families/types.js';
import { Rng } from '../util/rng.js';
import { CompiledSim } from '../../sim/compiled.js';
import { comparePacked, type Comparison } from '../../sim/cosim/compare.js';
import { runVerilatorPacked } from '../../sim/cosim/verilator.js';
import { Grow, pickerOf } from './stream.js';
import { keyOfIndex, listWorkload, uniformWorkload, zipfWorkload, type Workload } from '../model/workloads.js';
import { fromWords, toWords } from '../../sim/words.js';

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
  const d = lf.design();
  const sim = new CompiledSim(d, { poisonCollisions: true });
  const p = lf.shard.protocol();
  const N = lf.lanes;
  const rng = new Rng(o.seed);
  const L = sim.layout;
  const inAt = new Map(d.inputs.map((q, i) => [q.name, { at: L.inputOffsets[i]!, width: d.nets[q.net]!.width }]));
  const outAt = new Map(d.outputs.map((q, i) => [q.name, { at: L.outputOffsets[i]!, width: d.nets[q.net]!.width }]));
  const need = <T>(m: Map<string, T>, n: string): T => {
    const x = m.get(n);
    if (!x) throw new Error(`design '${d.name}' has no port '${n}'`);
    return x;
  };
  const pickOp = pickerOf(o.mix ?? lf.base.verifyMix(), p.ops, rng);
  if (o.lastOp !== undefined && p.ops[o.lastOp] === undefined)
    throw new Error(`lastOp: '${o.lastOp}' is not an op of ${lf.name} (${Object.keys(p.ops).join(', ')})`);
  const workload = laneKeySource(o.workload ?? 'uniform', o.keys ?? laneKeyPool(lf), lf.base.config.keyBits);
  const tagMask = 2 ** lf.base.config.tagBits - 1;

  const lanes = Array.from({ length: N }, (_, i) => ({
    valid: need(inAt, `in${i}_valid`).at,
    op: need(inAt, `in${i}_op`),
    key: need(inAt, `in${i}_key`),
    tag: need(inAt, `in${i}_tag`),
    fields: p.request.map((f) => ({ f, ...need(inAt, `in${i}_${f.port.replace(/^in_/, '')}`) })),
    outReady: need(inAt, `out${i}_ready`).at,
    inReady: need(outAt, `in${i}_ready`).at,
    outValid: need(outAt, `out${i}_valid`).at,
    outTag: need(outAt, `out${i}_tag`),
    outSeq: need(outAt, `out${i}_seq`),
    resp: p.response.map((f) => ({ f, ...need(outAt, `out${i}_${f.port.replace(/^out_/, '')}`) })),
    // Global time: a scan step follows the op in the linear order.
    outScan: outAt.get(`out${i}_scan`)?.at ?? null,
    sent: 0,
    current: null as StreamRequest | null,
    /** The current request's op, key, tag and fields as words at their row offsets (formed once). */
    words: null as { at: number; words: Uint32Array }[] | null,
    zeros: [] as { at: number; words: Uint32Array }[],
    inFlight: [] as StreamRequest[],
    lastSeq: -1,
    nextTag: 0,
  }));
  type LanePorts = (typeof lanes)[number];
  const segments = (l: LanePorts, c: StreamRequest | null): { at: number; words: Uint32Array }[] => [
    { at: l.op.at, words: toWords(c ? BigInt(p.ops[c.op]!) : 0n, l.op.width) },
    { at: l.key.at, words: toWords(c ? c.key : 0n, l.key.width) },
    { at: l.tag.at, words: toWords(c ? BigInt(c.tag) : 0n, l.tag.width) },
    ...l.fields.map((f) => ({ at: f.at, words: toWords(c ? (c.fields[f.f.name] ?? 0n) : 0n, f.width) })),
  ];
  for (const l of lanes) l.zeros = segments(l, null);
  const rstAt = inAt.get('rst')?.at ?? null;
  const row = new Uint32Array(L.inputWords);
  const out = new Uint32Array(L.outputWords);
  const stimRec = o.record ? new Grow(L.inputWords * 1024) : null;
  const outRec = o.record ? new Grow(L.outputWords * 1024) : null;
  const answered: { seq: number; lane: number; req: StreamRequest; got: ResponseFields; scan: boolean }[] = [];
  const res: LaneDriveResult = {
    cycles: 0,
    ops: 0,
    responses: 0,
    busyCycles: 0,
    opsPerCycle: 0,
    mismatches: [],
    mismatchCount: 0,
    memory: null,
    agingEvents: 0,
    stim: null,
    out: null,
    finished: false,
  };
  const mismatch = (s: string): void => {
    if (res.mismatches.length < 20) res.mismatches.push(s);
    res.mismatchCount++;
  };
  const bp = o.backpressure ?? 0;
  const idle = o.idle ?? 0;
  const wrap = 2 ** SEQ_BITS;
  let maxSeq = -1;
  let firstResponse = -1;
  let steadyOps = 0;
  let lastAccept = -1;
  let quiet = 0;
  const quietLimit = p.maxStallCycles + lf.latency() + 64 * N + Math.ceil(64 / (1 - bp)) + Math.ceil(64 / (1 - idle));
  /** A cycle whose outputs are recorded but not checked (reset, the idle tail). */
  const plainCycle = (): void => {
    sim.pokeRow(row);
    sim.peekRow(out);
    stimRec?.push(row);
    outRec?.push(out);
    sim.step();
    res.cycles++;
  };
  // Reset for one cycle, then run.
  if (rstAt !== null) {
    row.fill(0);
    row[rstAt] = 1;
    plainCycle();
    row[rstAt] = 0;
  }
  for (;;) {
    const done = lanes.every((l) => l.sent === o.opsPerLane && l.current === null && l.inFlight.length === 0);
    if (done) break;
    for (const l of lanes) {
      if (l.current === null && l.sent < o.opsPerLane && rng.float() >= idle) {
        const op = o.lastOp !== undefined && l.sent === o.opsPerLane - 1 ? o.lastOp : pickOp();
        const fields = lf.base.requestFields(rng);
        l.current = { op, key: workload.nextKey(rng), tag: l.nextTag++ & tagMask, fields };
        l.sent++;
      }
      const c = l.current;
      row[l.valid] = c ? 1 : 0;
      // A request waits at in_ready for some cycles: its words are formed once (zeros when none).
      if (c) l.words ??= segments(l, c);
      for (const w of c ? l.words! : l.zeros) row.set(w.words, w.at);
      row[l.outReady] = rng.float() >= bp ? 1 : 0;
    }
    sim.pokeRow(row);
    sim.peekRow(out);
    stimRec?.push(row);
    outRec?.push(out);
    let progress = false;
    lanes.forEach((l, i) => {
      if (l.current && out[l.inReady] === 1) {
        l.inFlight.push(l.current);
        l.current = null;
        l.words = null;
        res.ops++;
        if (firstResponse >= 0) steadyOps++;
        lastAccept = res.cycles;
        progress = true;
      }
      if (out[l.outValid] === 1 && row[l.outReady] === 1) {
        progress = true;
        if (firstResponse < 0) firstResponse = res.cycles;
        res.responses++;
        const req = l.inFlight.shift();
        const tag = Number(fromWords(out, l.outTag.at, l.outTag.width));
        if (!req) {
          mismatch(`cycle ${res.cycles} lane ${i}: a response (tag ${tag}) with no request in flight`);
          return;
        }
        if (tag !== req.tag) mismatch(`cycle ${res.cycles} lane ${i}: response tag ${tag}, expected ${req.tag}`);
        const s16 = Number(fromWords(out, l.outSeq.at, l.outSeq.width));
        // Unwrap: the full number closest to the largest seen (ops in flight are << 2^15 apart).
        const base = maxSeq < 0 ? 0 : maxSeq;
        let seq = base - (((base % wrap) + wrap) % wrap) + s16;
        if (seq - base > wrap / 2) seq -= wrap;
        else if (base - seq > wrap / 2) seq += wrap;
        maxSeq = Math.max(maxSeq, seq);
        if (seq <= l.lastSeq) mismatch(`lane ${i}: seq ${seq} after ${l.lastSeq} (the order must follow the lane's)`);
        l.lastSeq = seq;
        const got: ResponseFields = {};
        for (const f of l.resp) got[f.f.name] = fromWords(out, f.at, f.width);
        answered.push({ seq, lane: i, req, got, scan: l.outScan !== null && out[l.outScan] === 1 });
      }
    });
    sim.step();
    res.cycles++;
    quiet = progress ? 0 : quiet + 1;
    if (quiet > quietLimit) {
      mismatch(`stuck: no request accepted or answered for ${quiet} cycles (cycle ${res.cycles})`);
      break;
    }
  }
  // Every op answered; background work may still run (a clear's sweep of the shards' banks, which
  // answers as it starts): idle cycles, every lane ready for its answers, long enough for any
  // memory to be swept word by word, before the memories are compared.
  if (!o.throughputOnly && res.mismatchCount === 0) {
    const settle = Math.max(0, ...sim.layout.memories.map((mem) => mem.depth)) + 64;
    for (const l of lanes) {
      row[l.valid] = 0;
      row[l.outReady] = 1;
    }
    for (let c = 0; c < settle; c++) plainCycle();
  }
  res.finished = res.mismatchCount === 0;
  res.busyCycles = firstResponse < 0 || lastAccept < firstResponse ? 0 : lastAccept - firstResponse + 1;
  res.opsPerCycle = res.busyCycles ? steadyOps / res.busyCycles : 0;
  if (!o.throughputOnly) {
    answered.sort((a, b) => a.seq - b.seq);
    answered.forEach((a, n) => {
      if (a.seq !== n) mismatch(`sequence numbers: position ${n} holds seq ${a.seq} (a gap or a repeat)`);
    });
    const model = lf.model();
    model.externalScan = true;
    for (const a of answered) {
      const want = model.apply(a.req);
      if (a.scan) model.scan();
      const bad = Object.keys(want).filter((k) => want[k] !== a.got[k]);
      if (bad.length)
        mismatch(
          `seq ${a.seq} (lane ${a.lane}, ${a.req.op} key 0x${a.req.key.toString(16)} tag ${a.req.tag}): ` +
            bad.map((k) => `${k} expected ${want[k]}, got ${a.got[k]}`).join(', '),
        );
    }
    model.finish();
    for (const x of model.problems) mismatch(`scan steps: ${x}`);
    res.agingEvents = model.agingEvents();
    const mem = model.compareMemories((name, addr) => sim.readMemory(name, addr));
    res.memory = { checked: mem.checked, unit: mem.unit, count: mem.count, mismatches: mem.mismatches };
    if (mem.count) mismatch(`memories: ${mem.count} ${mem.unit} differ from the model (${mem.mismatches[0]})`);
  }
  if (o.keepOrder) {
    res.order = answered;
    res.readMemory = (name, addr) => sim.readMemory(name, addr);
  }
  if (stimRec && outRec) {
    res.stim = stimRec.done();
    res.out = outRec.done();
  }
  return res;
}

/** The recorded input rows on Verilator, compared with the simulator's outputs every cycle. */
export async function laneCosim(lf: LaneFilter, r: LaneDriveResult): Promise<Comparison> {
  if (!r.stim || !r.out) throw new Error('laneCosim: drive with record: true');
  const d = lf.design();
  const vl = await runVerilatorPacked(d, r.stim, r.cycles);
  return comparePacked(d, ['ts', 'verilator'], r.out, vl, r.cycles);
}
