/**
 * RTL generator for counting and spectral Bloom filter pipelines (MS, MI, RM; II = 1, fixed
 * latency, in-order responses).
 *
 * Ports (all synchronous to clk):
 *   in_valid, in_ready      request handshake; in_ready (a register) is low only while a
 *                           reset/clear sweep runs (or a clear waits for the ops ahead of it to
 *                           write), or when the response queue is full (back-pressure)
 *   in_op[2:0]              0 query (count), 1 insert, 2 test-and-insert, 3 remove (configs with
 *                           remove; otherwise a no-op answered with zeros), 4 clear
 *   in_key, in_tag          the key, and a tag returned with the response
 *   out_valid, out_ready    response handshake; responses come in request order
 *   out_tag                 the request's tag
 *   out_hit, out_count      query and test-and-insert (as of before its own insert): the estimate
 *                           (MS/MI: the minimum of the key's counters; RM: the recurring-minimum
 *                           rule) and estimate > 0; 0 for the other ops
 *   out_overflow            some counter the op incremented (or added to) was saturated
 *   out_underflow           some counter the op decremented was 0
 *
 * Pipeline (cycle 0: the request is accepted; every stage boundary is a register):
 *   0   input registers (op decoded; insert, remove and clear qualified by the accept)
 *   1   H3 hash of every bank in 16-bit key chunks, each piece registered
 *   2   the pieces XORed (one LUT), the hash registered
 *   3   R: block RAM reads (word address and lane from the hash) — counterBank (src/stages/
 *       counters.ts) from here: 4 the RAM word registered, corrected for the write at the read's
 *       edge; 5 corrected for the next write, the lane extracted, corrected for the op two ahead
 *   6   M: the counter corrected for the op one ahead (one LUT); the update: MS +1 / −1 saturating
 *       on every bank; MI +1 on the banks holding the minimum (a pairwise compare of the k
 *       counters, in this cycle: the distance-1 loop); flags
 *   7   W: the words written back; the counters registered, compared pairwise (registered)
 *   8   the minimum (the counter no other is below, OR-selected) and hit enter the response queue
 *       (MS, MI: LATENCY 9)
 * RM adds the secondary filter: its banks read in cycle 6 (hash registered in 2, delayed), while
 *   7, 8 compare the primary's new counters pairwise and register their minimum and whether one
 *   counter only holds it (and the same of the old counters, for the answer); its modify stage
 *   is 9: found = every secondary counter > 0; insert with a single primary minimum adds 1 if
 *   found, else the primary's minimum (saturating); remove with a single minimum subtracts 1 if
 *   found; 10 written back, secondary counters compared pairwise; 11 their minimum registered; 12
 *   the recurring-minimum answer enters the queue (LATENCY 13).
 * Lane shard (`direct`, src/lanes/ and ./lanes.ts): no response queue and no out_ready; the
 *   values that would enter the queue are the outputs (out_valid in cycle 8, or 12 for RM: one
 *   less latency), and in_ready keeps no room for responses (the dispatcher takes each as it comes).
 * Clear: the op travels down the pipeline; when it reaches the last write stage every op ahead
 * of it has written, and the sweep (src/stages/clear.ts, lookahead form) starts: CLEAR_DELAY
 * cycles, then one word per cycle of every bank with in_ready low (a pending flag holds in_ready
 * low from the clear's accept until the sweep is busy). Power-up and rst sweep the same way.
 *
 * Composition (src/stages/): registeredInput (0), wideH3 (1, 2), counterBank per bank (3..7),
 * saturatingStep / saturatingAdd (the updates), pipeStage, clearSweep, occupancy, responseQueue.
 * Family-only and kept here: the minimum networks, MI's update, RM's rule.
 */
import { ModuleBuilder, type Sig } from '../../dsl/module.js';
import type { Design } from '../../ir/types.js';
import { clearSweep } from '../../stages/clear.js';
import { type CounterBank, counterBank, saturatingAdd, saturatingStep } from '../../stages/counters.js';
import { wideH3 } from '../../stages/hash.js';
import { decodeOp, registeredInput } from '../../stages/input.js';
import { pipeStage } from '../../stages/pipeline.js';
import { type Occupancy, occupancy, responseQueue } from '../../stages/responseQueue.js';
import { primarySalt, secondarySalt } from './model.js';
import { countingMeta, MODIFY_CYCLE, OP, queueDepthOf, READ_CYCLE, SECONDARY_MODIFY_CYCLE } from './params.js';
import type { CountingDerived } from './types.js';

/** The control fields of the pipeline records (reset, so a reset pipeline is empty). */
const CONTROL = { control: ['valid', 'ins', 'rem', 'clear', 'mod'] };

/** Key bits per registered piece of an H3 hash (a 64-bit key: four pieces, XORed in one LUT). */
const HASH_CHUNK = 16;

/** Name of the block RAM of primary (or secondary) bank i, as the DSL scopes produce it. */
export function countingMemoryName(secondary: boolean, bank: number): string {
  return `${secondary ? 'sec' : 'bank'}${bank}_ram`;
}

export interface CountingBuildOptions {
  /** Forward in-flight writes (default true); off only to show the tests catch the hazards. */
  forwarding?: boolean;
}

/** Pairwise compares of k counters, registered; their minimum and its multiplicity a cycle later. */
interface MinNetwork {
  /** The minimum of the counters. */
  min: Sig;
  /** Exactly one counter holds the minimum. */
  single: Sig;
  /** Every counter is non-zero (the minimum is not 0). */
  nonZero: Sig;
}

/**
 * `le[i][j]` = v_i ≤ v_j for every ordered pair, the values and v_i ≠ 0, registered; then (after
 * the registers) counter i holds the minimum when no other is below it (an AND of its row), the
 * minimum is the OR of the values that hold it (they are equal), and one counter alone holds it
 * when it is strictly below every other (v_i < v_j is ¬(v_j ≤ v_i)).
 */
function minNetwork(m: ModuleBuilder, values: Sig[], prefix: string): MinNetwork {
  const reg = (x: Sig, name: string): Sig => m.pipe(x, 1, `${prefix}_${name}`, { reset: null });
  const v = values.map((x, i) => reg(x, `v${i}`));
  const nz = values.map((x, i) => reg(x.ne(0), `nz${i}`));
  const le = values.map((a, i) => values.map((b, j) => (i === j ? m.const(1, 1) : reg(a.le(b), `le${i}_${j}`))));
  const one = m.const(1, 1);
  const isMin = le.map((row) => row.reduce((x, y) => x.and(y), one));
  const below = values.map((_, i) =>
    values.reduce<Sig>((acc, _b, j) => (i === j ? acc : acc.and(le[j]![i]!.not())), one),
  );
  const w = values[0]!.width;
  const min = isMin.map((f, i) => v[i]!.and(m.mux(f, m.const(2 ** w - 1, w), 0))).reduce((x, y) => x.or(y));
  return { min, single: below.reduce((x, y) => x.or(y)), nonZero: nz.reduce((x, y) => x.and(y)) };
}

/** The request's fields as they travel down the pipeline (control fields reset). */
// A type, not an interface: pipeStage takes a record of signals by index signature.
type OpRecord = {
  valid: Sig;
  ins: Sig;
  rem: Sig;
  query: Sig;
  clear: Sig;
  tag: Sig;
  mod: Sig;
};

/** The ports a request arrives on (and out_ready, unless the design is a lane shard). */
interface RequestPorts {
  valid: Sig;
  op: Sig;
  key: Sig;
  tag: Sig;
  outReady: Sig | null;
}

/** What a response carries, as it enters the queue (or leaves a lane shard). */
interface ResponseFields {
  valid: Sig;
  tag: Sig;
  hit: Sig;
  count: Sig;
  ovf: Sig;
  udf: Sig;
}

/** The design-wide signals a counter bank is built with. */
interface BankContext {
  m: ModuleBuilder;
  c: CountingDerived;
  forwarding: boolean;
  sweepActive: Sig;
  sweepAddr: Sig;
}

function requestPorts(m: ModuleBuilder, c: CountingDerived): RequestPorts {
  return {
    valid: m.input('in_valid', 1, 'request valid'),
    op: m.input(
      'in_op',
      3,
      `operation: 0 query (count), 1 insert, 2 test-and-insert, ${c.remove ? '3 remove' : '3 no-op (no remove in this config)'}, 4 clear`,
    ),
    key: m.input('in_key', c.keyBits, 'key'),
    tag: m.input('in_tag', c.tagBits, 'tag, returned with the response'),
    // A lane design's shard answers as the response is formed (no queue, no out_ready).
    outReady: c.direct ? null : m.input('out_ready', 1, 'response consumer ready'),
  };
}

/** Cycle 0: the input registers, the op decoded into flags (absent flags are constant 0). */
function inputStage(m: ModuleBuilder, c: CountingDerived, io: RequestPorts) {
  // Without remove there is no `rem` flag: op 3 sets no flag and is answered with zeros.
  const flags: Record<string, { codes: readonly number[]; qualified: boolean }> = {
    ins: { codes: [OP.insert, OP.testAndInsert], qualified: true },
    ...(c.remove ? { rem: { codes: [OP.remove], qualified: true } } : {}),
    query: { codes: [OP.query, OP.testAndInsert], qualified: false },
    clear: { codes: [OP.clear], qualified: true },
  };
  const input = registeredInput(m, {
    valid: io.valid,
    op: io.op,
    flags,
    data: { key: io.key, tag: io.tag },
    name: 'in',
  });
  const flag = (name: string): Sig => input.flags[name] ?? m.const(0, 1);
  const f = { ins: flag('ins'), rem: flag('rem'), query: flag('query'), clear: flag('clear') };
  return { input, f };
}

type CountingInput = ReturnType<typeof inputStage>;

/**
 * Cycles 1, 2: the H3 hash of every primary (and, for RM, secondary) bank; the request's fields
 * travel beside it to the read cycle.
 */
function hashStage(
  m: ModuleBuilder,
  c: CountingDerived,
  { input, f }: CountingInput,
): { at: OpRecord; primary: Sig[]; secondary: Sig[] } {
  const s1: OpRecord = {
    valid: input.valid,
    ins: f.ins,
    rem: f.rem,
    query: f.query,
    clear: f.clear,
    tag: input.data.tag,
    mod: f.ins.or(f.rem),
  };
  const hashes = (secondary: boolean): Sig[] =>
    Array.from({ length: c.k }, (_, i) =>
      m.scope(`${secondary ? 'sec' : 'bank'}${i}`, () =>
        wideH3(m, {
          key: input.data.key,
          bits: Math.log2(secondary ? c.secondaryCellsPerBank : c.cellsPerBank),
          unitBits: 32,
          seed: c.seed,
          salt: () => (secondary ? secondarySalt(i) : primarySalt(i)),
          chunkBits: HASH_CHUNK,
          name: 'hash',
        }),
      ),
    );
  const primary = hashes(false);
  const secondary = c.algorithm === 'rm' ? hashes(true) : [];
  return { at: stagesThrough(m, s1, 2, READ_CYCLE), primary, secondary };
}

/** The record registered through stages `from`..`to` (named s<t>). */
function stagesThrough(m: ModuleBuilder, r: OpRecord, from: number, to: number): OpRecord {
  let s = r;
  for (let t = from; t <= to; t++) s = pipeStage(m, `s${t}`, s, CONTROL);
  return s;
}

/** Primary (or secondary) bank i: read at `at` by the hash's word address and lane. */
function bankAt(b: BankContext, secondary: boolean, i: number, hash: Sig, at: OpRecord): CounterBank {
  const { m, c } = b;
  const laneBits = Math.log2(c.lanes);
  return m.scope(`${secondary ? 'sec' : 'bank'}${i}`, () => {
    const hb = hash.width;
    const depth = secondary ? c.secondaryDepth : c.depth;
    return counterBank(m, {
      counterBits: c.counterBits,
      lanes: c.lanes,
      depth,
      addr: hash.slice(hb - 1, laneBits),
      lane: laneBits === 0 ? null : hash.slice(laneBits - 1, 0),
      read: at.valid,
      modify: at.mod,
      sweep: { active: b.sweepActive, addr: b.sweepAddr.trunc(Math.log2(depth)) },
      forwarding: b.forwarding,
    });
  });
}

/** The primary counters' new values (M), and whether an increment saturated or a decrement was at 0. */
interface PrimaryUpdate {
  next: Sig[];
  ovf: Sig;
  udf: Sig;
}

/** M: MS steps every counter (+1 / −1, saturating); MI increments only the counters holding the minimum. */
function primaryUpdate(m: ModuleBuilder, c: CountingDerived, values: Sig[], sm: OpRecord, one: Sig): PrimaryUpdate {
  const next: Sig[] = [];
  if (c.algorithm === 'mi') {
    // Minimum increase: +1 on the counters no other is below (pairwise compares, this cycle).
    const ovfs: Sig[] = [];
    values.forEach((v, i) => {
      const isMin = values.reduce<Sig>((acc, u, j) => (i === j ? acc : acc.and(v.le(u))), one);
      const st = saturatingStep(m, v, sm.ins.and(isMin), m.const(0, 1));
      next.push(st.next);
      ovfs.push(st.overflow);
    });
    return { next, ovf: ovfs.reduce((x, y) => x.or(y)), udf: m.const(0, 1) };
  }
  const steps = values.map((v) => saturatingStep(m, v, sm.ins, sm.rem));
  steps.forEach((st) => next.push(st.next));
  return {
    next,
    ovf: steps.map((st) => st.overflow).reduce((x, y) => x.or(y)),
    udf: steps.map((st) => st.underflow).reduce((x, y) => x.or(y)),
  };
}

/** The response and the stage whose `clear` starts the sweep (every op ahead of it has written). */
interface Answer {
  push: ResponseFields;
  lastWrite: Sig;
}

type WithFlags = OpRecord & { ovf: Sig; udf: Sig };

/** 8 (MS, MI): the minimum of the key's old counters and whether it is non-zero. */
function minimumAnswer(m: ModuleBuilder, r: WithFlags, old1: MinNetwork): Answer {
  const r8 = pipeStage(m, `s${MODIFY_CYCLE + 2}`, r, CONTROL);
  return {
    lastWrite: r.clear,
    push: {
      valid: r8.valid,
      tag: r8.tag,
      hit: old1.nonZero.and(r8.query),
      count: m.mux(r8.query, old1.min, 0),
      ovf: r8.ovf,
      udf: r8.udf,
    },
  };
}

/** RM, 8 → 9: the primary's minima registered, and whether the secondary is to be updated. */
function primaryMinima(m: ModuleBuilder, r: WithFlags, next1: Sig[], old1: MinNetwork) {
  const t7 = MODIFY_CYCLE + 1;
  const nv1 = next1.map((v, i) => m.pipe(v, 1, `s${t7}_nv${i}`, { reset: null }));
  const new1 = minNetwork(m, nv1, `s${t7}_new`);
  const r8 = pipeStage(m, `s${t7 + 1}`, r, CONTROL);
  const t9 = SECONDARY_MODIFY_CYCLE;
  const reg9 = (x: Sig, name: string): Sig => m.pipe(x, 1, `s${t9}_${name}`, { reset: null });
  const minNew = reg9(new1.min, 'min_new');
  // Insert / remove with a single primary minimum, registered (the secondary's update selects
  // with `found` last).
  const doIns = reg9(r8.ins.and(new1.single), 'do_ins');
  const doRemIfFound = reg9(r8.rem.and(new1.single), 'do_rem');
  const minOld = reg9(old1.min, 'min_old');
  const singleOld = reg9(old1.single, 'single_old');
  const nzOld = reg9(old1.nonZero, 'nz_old');
  const r9 = pipeStage(m, `s${t9}`, r8, CONTROL);
  return { r9, minNew, doIns, doRemIfFound, minOld, singleOld, nzOld };
}

/**
 * RM, 9: the secondary's read-modify-write. found = every secondary counter > 0; an insert with a
 * single primary minimum adds 1 if found, else the primary's minimum (saturating); a remove with a
 * single minimum subtracts 1 if found. Returns the counters read and the overflows.
 */
function secondaryUpdate(
  b: BankContext,
  hashes: Sig[],
  at6: OpRecord,
  p: ReturnType<typeof primaryMinima>,
  one: Sig,
): { v2: Sig[]; ovf2: Sig[] } {
  const { m } = b;
  // The secondary banks read in cycle 6 (their hash delayed from cycle 3).
  const banks2 = hashes.map((h, i) =>
    bankAt(b, true, i, m.pipe(h, MODIFY_CYCLE - READ_CYCLE, `sec${i}_hash_d`, { reset: null }), at6),
  );
  const v2 = banks2.map((bk) => bk.value);
  const found = v2.map((v) => v.ne(0)).reduce((x, y) => x.and(y));
  const ovf2: Sig[] = [];
  banks2.forEach((bk, i) => {
    const v = v2[i]!;
    // Both additions side by side (+1 when found, + the primary's minimum when not), selected
    // after the adders: `found` (an AND over the banks) does not wait for them, nor they for it.
    const inc = saturatingStep(m, v, one, m.const(0, 1));
    const add = saturatingAdd(m, v, p.minNew);
    ovf2.push(p.doIns.and(m.mux(found, inc.overflow, add.overflow)));
    const ifFound = m.mux(p.doIns, inc.next, m.mux(p.doRemIfFound, v.sub(1), v));
    bk.update(m.mux(found, ifFound, m.mux(p.doIns, add.sum, v)));
  });
  return { v2, ovf2 };
}

/** RM, 10..12: the secondary counters' minimum, and the recurring-minimum rule's answer. */
function recurringMinimumAnswer(
  m: ModuleBuilder,
  p: ReturnType<typeof primaryMinima>,
  { v2, ovf2 }: { v2: Sig[]; ovf2: Sig[] },
): Answer {
  const { r9, minOld, singleOld, nzOld } = p;
  // 10: written back; secondary counters compared; 11: their minimum; 12: the answer.
  const t10 = SECONDARY_MODIFY_CYCLE + 1;
  const cur2 = v2.map((v, i) => m.pipe(v, 1, `s${t10}_cur${i}`, { reset: null }));
  const r10 = pipeStage(
    m,
    `s${t10}`,
    { ...r9, ovf: r9.ovf.or(ovf2.reduce((x, y) => x.or(y))), minOld, singleOld, nzOld },
    CONTROL,
  );
  const sec = minNetwork(m, cur2, `s${t10}_sec`);
  const r11 = pipeStage(m, `s${t10 + 1}`, r10, CONTROL);
  const r12 = pipeStage(m, `s${t10 + 2}`, { ...r11, min2: sec.min, found2: sec.nonZero }, CONTROL);
  const useSecondary = r12.singleOld.and(r12.found2);
  return {
    lastWrite: r10.clear,
    push: {
      valid: r12.valid,
      tag: r12.tag,
      hit: useSecondary.or(r12.nzOld).and(r12.query),
      count: m.mux(r12.query, m.mux(useSecondary, r12.min2, r12.minOld), 0),
      ovf: r12.ovf,
      udf: r12.udf,
    },
  };
}

/** The outputs: straight from `push` on a lane shard, else through the response queue. */
function responsePorts(
  m: ModuleBuilder,
  c: CountingDerived,
  io: RequestPorts,
  ready: Sig,
  fire: Sig,
  occ: Occupancy | null,
  push: ResponseFields,
): void {
  if (!io.outReady || !occ) {
    m.output('in_ready', ready, 'request accepted when in_valid and in_ready');
    m.output('out_valid', push.valid, 'response valid (taken as it comes: no out_ready)');
    m.output('out_tag', push.tag, 'tag of the request');
    m.output('out_hit', push.hit, 'estimate > 0 (query, test-and-insert: as of before its own insert)');
    m.output('out_count', push.count, "the estimate of the key's count (0 for insert, remove, clear)");
    m.output('out_overflow', push.ovf, 'a counter the op incremented was saturated at 2^w - 1');
    m.output('out_underflow', push.udf, 'a counter the op decremented was at 0');
    return;
  }
  const rq = responseQueue(
    m,
    queueDepthOf(c.algorithm),
    push.valid,
    [push.tag, push.hit, push.count, push.ovf, push.udf],
    io.outReady,
    { oneHotWrite: true },
  );
  occ.step(fire, rq.pop);
  m.output('in_ready', ready, 'request accepted when in_valid and in_ready');
  m.output('out_valid', rq.outValid, 'response available');
  m.output('out_tag', rq.head[0]!, 'tag of the request');
  m.output('out_hit', rq.head[1]!, 'estimate > 0 (query, test-and-insert: as of before its own insert)');
  m.output('out_count', rq.head[2]!, "the estimate of the key's count (0 for insert, remove, clear)");
  m.output('out_overflow', rq.head[3]!, 'a counter the op incremented was saturated at 2^w - 1');
  m.output('out_underflow', rq.head[4]!, 'a counter the op decremented was at 0');
}

export function buildCounting(c: CountingDerived, opts: CountingBuildOptions = {}): Design {
  const m = new ModuleBuilder(c.name);
  Object.assign(m.meta, countingMeta(c));
  const io = requestPorts(m, c);
  const inp = inputStage(m, c, io);
  const { input } = inp;
  const sweep = clearSweep(m, { addrBits: Math.log2(c.depth), depth: c.depth });
  const occ = c.direct ? null : occupancy(m, { capacity: queueDepthOf(c.algorithm) });
  const pending = m.reg('clear_pending', 1);
  const clearOnWire = input.fire.and(decodeOp(io.op, [OP.clear]));
  const h = hashStage(m, c, inp);
  // The sweep: started by the clear when it reaches the last write stage (connected below).
  const sweepStart = m.wire('sweep_start', 1);
  const { active: sweepActive } = sweep.connectLookahead(sweepStart);
  const bc: BankContext = { m, c, forwarding: opts.forwarding ?? true, sweepActive, sweepAddr: sweep.addr };

  // ---- 3..7: the primary banks' read-modify-write ----------------------------------------------
  const banks1 = h.primary.map((hash, i) => bankAt(bc, false, i, hash, h.at));
  const sm = stagesThrough(m, h.at, READ_CYCLE + 1, MODIFY_CYCLE);
  const values = banks1.map((b) => b.value);
  const one = m.const(1, 1);
  const p1 = primaryUpdate(m, c, values, sm, one);
  banks1.forEach((b, i) => b.update(p1.next[i]!));

  // ---- 7, 8: the response (MS, MI), or the primary's minima (RM) -----------------------------
  const t7 = MODIFY_CYCLE + 1;
  const cur1 = values.map((v, i) => m.pipe(v, 1, `s${t7}_cur${i}`, { reset: null }));
  const r = pipeStage(m, `s${t7}`, { ...sm, ovf: p1.ovf, udf: p1.udf }, CONTROL);
  const old1 = minNetwork(m, cur1, `s${t7}_old`);
  let answer: Answer;
  if (c.algorithm !== 'rm') answer = minimumAnswer(m, r, old1);
  else {
    const pm = primaryMinima(m, r, p1.next, old1);
    answer = recurringMinimumAnswer(m, pm, secondaryUpdate(bc, h.secondary, { ...sm }, pm, one));
  }
  m.assignWire(sweepStart, answer.lastWrite);
  // A clear holds in_ready low from its accept until the sweep it starts is running.
  pending.next(m.mux(sweepStart, 0, m.mux(clearOnWire, 1, pending)));
  // (A direct shard keeps no room in a queue: the dispatcher takes every response as it comes.)
  input.setReady((occ ? occ.fullAfter(input.fire).or(sweep.busy) : sweep.busy).or(pending).or(clearOnWire));
  responsePorts(m, c, io, input.ready, input.fire, occ, answer.push);
  return m.build();
}
