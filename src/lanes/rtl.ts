/**
 * The N-lane, S-shard wrapper: N request lanes, a dispatcher, S instances of a family's pipeline
 * (each holding 1/S of the memory, chosen by an H3 hash of the key) and N response queues.
 *
 * Ports, for each lane i (all synchronous to clk, `rst` synchronous active high):
 *   in<i>_valid, in<i>_ready   request handshake (in<i>_ready is a register)
 *   in<i>_op, in<i>_key, in<i>_tag and the family's request fields in<i>_<field>
 *   out<i>_valid, out<i>_ready response handshake; a lane's responses come in its request order
 *   out<i>_tag, out<i>_seq     the request's tag, and its place in the linear order (below)
 *   out<i>_<field>             the family's response fields (out<i>_hit, …)
 *
 * Each lane has the family's two-entry skid input (its data store's pointer register updated a
 * cycle after the grant and the grant's register xored into it as it is read, `lateRelease`: the
 * same pointer on the same edge, with no grant at the register's enable); the shard index (H3 of the key, salt
 * SHARD_SALT) is computed as a request enters and kept with it. Every cycle the dispatcher
 * looks at the N head requests and
 *   - (fast mode) grants every head whose lane has room in its response queue and which no
 *     earlier head of the cycle wants the same shard with: "earlier" in a priority order that
 *     rotates by one lane each cycle, so a hot shard is shared fairly;
 *   - (slow mode: a broadcast op, tick or clear, at a head; or, with ticks, near the end of a
 *     generation: < 3N inserts left by the count of two cycles ago, so whenever < N are left)
 *     grants the first head in priority order alone, or nothing while it is held back (an insert
 *     after a cycle of two or more near the end, a broadcast until its shards are ready); a
 *     broadcast goes to every shard at once; when the generation is full and that head is an
 *     insert, every shard gets the tick op instead (the global aging step, its responses
 *     dropped), and the next cycle that may grant that insert goes alone.
 * It grants nothing while a core was not ready last cycle (`go`: a clear's sweep), in the HOLD
 * cycles after a broadcast, or in the cycle after one that could grant a broadcast (`go` with a
 * broadcast at a requesting head: one grant every other cycle while a broadcast waits behind
 * other heads, the priority order rotating over the cycles that may grant; a tick's insert then
 * goes a cycle later); a tick only while no shard would stall on it (the family's `tickReady` port), and a
 * shard of a family that takes an op once in `interval` cycles once in that many. What the grants
 * read of the heads is registers formed from the heads' next values: whether a head requests
 * (`lane<i>_req`: valid, room in its lane's queue; not with an interval), whether two heads want
 * one shard (`same_<j>_<i>`), whether a broadcast is at a head (`any_bcast`). The grants and
 * the granted heads are registered (the issue stage: the next cycle routes them to their shards,
 * numbers them and counts their inserts into the global time), so a granted request enters the
 * shard's pipeline (the family's shard config: no response queue of its own, or out_ready tied
 * high) the cycle after its grant, with a tag carrying {drop, lane}, and answers after the
 * pipeline's fixed latency: every request takes
 * the same cycles from grant to answer, so each lane's answers come back in its request order, at
 * most one per cycle. They go into the lane's response queue (laneQueueDepth entries, a lane granted
 * only while its queue has room for every request in flight: a count of the issued requests not
 * yet popped, which no grant feeds), whose seq and tag words, formed as the request is issued
 * and registered (written a cycle later), are a memory (a block RAM) and whose answers are
 * registers.
 *
 * Linear order: the ops of a cycle are executed by distinct shards, and a cycle never spans an
 * aging step (fast mode grants at most N inserts with at least N left), so they commute; the
 * order is cycle by cycle, lane 0 first within a cycle, and `seq` (SEQ_BITS bits, wrapping) numbers
 * the ops in that order. Every answer equals the sharded model's (src/lanes/model.ts) on it.
 *
 * Merging identical keys (`merge`, fast mode only): a query or insert head whose key equals that
 * of an earlier head granted as its shard's access joins it — the group runs as one shard op (a
 * test-and-insert when it holds a query and an insert, else the leader's op), the core's tag
 * carries a mask of the group's lanes, and each member's response goes into its own lane's
 * response queue (a pure insert's answer zeroed, as the family's insert answers).
 * The linear order of a cycle is then by shard (a shard's ops are its group), and within a group
 * its queries, its test-and-insert, then its inserts, each in lane order: a group answers as of
 * before its insert, and ops of different shards commute but for global time, which the order
 * gives them: a group's queries and test-and-insert at the time of its first insert (in_before:
 * the inserts of the shards before it), its insert writing that of its last (in_last: in_before
 * plus the group's inserts less one) — a key inserted at consecutive times keeps the last one.
 *
 * Latency with no conflict and out<i>_ready high: the core's latency + 4 (a cycle in the lane's
 * skid input, one in the issue stage, one registering the answer selected among the shards', one
 * in the lane's response queue).
 * out<i>_seq, out<i>_tag (and out<i>_scan) are 0 while out<i>_valid is low.
 */
import { ModuleBuilder, type Reg, type Sig, type Wire } from '../dsl/module.js';
import type { Design } from '../ir/types.js';
import { skidInput } from '../stages/input.js';
import { advanceTime, muxTree, bitsFor } from '../stages/primitives.js';
import { rotatingPriority, type RotatingPriority } from '../stages/arbiter.js';
import { countOnes, truthTable } from '../stages/bitCount.js';
import { anyOf, oneHotSelect } from '../stages/oneHot.js';
import { inFlightCount, slotQueue } from '../stages/slotQueue.js';
import type { PortField } from '../families/types.js';
import { popcount } from '../util/bits.js';

/** Bits of the sequence number on each response (wraps; see the verifier's unwrapping). */
export const SEQ_BITS = 16;
/** The least entries of a lane's response queue (laneQueueDepth). */
export const LANE_QUEUE = 16;

/**
 * Entries of each lane's response queue: a power of two, at least LANE_QUEUE, with room for every
 * request in flight at one grant per cycle with out<i>_ready high: a request is granted the cycle
 * after it enters the skid and popped as its answer leaves, the core's latency + 4 cycles after
 * that entry, so latency + 3 requests are in flight between cycles, latency + 2 of them counted
 * (the count follows the issue stage, laneCount), and a lane is granted while at most depth − 2
 * are counted (the count assumes this cycle's grant). So no lane stalls when its consumer is
 * ready.
 */
export function laneQueueDepth(coreLatency: number): number {
  // The response queue writes a request's meta at most two cycles after its grant and reads it
  // once its answer is in, the core's latency + 2 cycles after the grant.
  if (!(coreLatency >= 1)) throw new Error(`a lane shard's latency must be at least 1 cycle, not ${coreLatency}`);
  return Math.max(LANE_QUEUE, 2 ** Math.ceil(Math.log2(coreLatency + 4)));
}
/**
 * Cycles after a broadcast's grant in which nothing is granted: a clear granted in cycle c reaches
 * the cores from the issue stage in c + 1, and a core's in_ready must be low from the third cycle
 * after that (c + 4, src/families/types.ts) to its sweep's end; the dispatcher sees in_ready
 * through a register (`go`), so from c + 5 it sees the cores not ready.
 */
export const HOLD = 4;
/** Salt of the shard hash's H3 matrix (the cores' hashes use small salts). */
export const SHARD_SALT = 0x5a4d0001;

export interface LaneBuild {
  name: string;
  /** The shard's pipeline (the family's design for the shard config, key mix included). */
  core: Design;
  lanes: number;
  shards: number;
  keyBits: number;
  /** The user's tag width (kept in the lane's response queue; the core's tag carries drop and lane). */
  tagBits: number;
  seed: number;
  /** Ticks: inserts between aging steps (the generation), and the tick op (neither nor `time`: nothing ages). */
  period?: number;
  tickCode?: number;
  /** Cycles between two ops a shard takes (LaneSupport.interval; absent: 1). */
  interval?: number;
  /** Entries of each lane's response queue (laneQueueDepth of the core's latency). */
  queueDepth: number;
  /** Ticks: the shard's output port that is 1 when a tick would not stall it (LaneSupport.tickReady). */
  tickReady?: string;
  /**
   * Global time instead of ticks (LaneTime in src/families/types.ts): the time's block and wrap,
   * and the op code of a request that only carries a background step.
   */
  time?: { block: number; wrap: number; scanCode: number } | null;
  broadcastCodes: readonly number[];
  insertCodes: readonly number[];
  request: readonly PortField[];
  response: readonly PortField[];
  meta: Record<string, unknown>;
  /** Merging identical keys: the op codes of the family's query, insert and test-and-insert (absent: off). */
  merge?: { query: number; insert: number; testAndInsert: number } | null;
}

/**
 * Bits of a lane's response-queue word of meta: the seq, the user's tag, and with merging the
 * zeroed-answer flag, with global time the scan flag.
 */
export function metaBits(tagBits: number, merge: boolean, time: boolean): number {
  return SEQ_BITS + tagBits + (merge ? 1 : 0) + (time ? 1 : 0);
}

/** The lane wrapper's mux trees slice each select bit once (fewer cells for the simulator). */
const ONCE = { sliceOnce: true };

export function laneBitsOf(lanes: number): number {
  return Math.max(1, Math.log2(lanes));
}

/**
 * The core's tag width for a lane build: drop and lane (the seq and tag wait in the lane's
 * response queue, and answers come back in order); with merging, drop and a mask of the lanes
 * the response goes to.
 */
export function coreTagBits(lanes: number, merge = false): number {
  return merge ? 1 + lanes : 1 + laneBitsOf(lanes);
}

/** The wrapper's shape, derived from the build once: what every part below reads. */
interface Shape {
  m: ModuleBuilder;
  o: LaneBuild;
  N: number;
  S: number;
  opW: number;
  laneBits: number;
  shardBits: number;
  /** Merging identical keys (null: off, or a single lane). */
  mg: NonNullable<LaneBuild['merge']> | null;
  tagW: number;
  time: NonNullable<LaneBuild['time']> | null;
  /** Aging by ticks (a generation count and the tick op); a family that does not age has neither. */
  ticks: boolean;
  /** Cycles between two ops a shard takes. */
  II: number;
  /** A port's width on the shard's core. */
  width: (port: string) => number;
}

function shapeOf(m: ModuleBuilder, o: LaneBuild): Shape {
  const N = o.lanes;
  const core = o.core;
  const width = (port: string): number => {
    const p = [...core.inputs, ...core.outputs].find((q) => q.name === port);
    if (!p) throw new Error(`core '${core.name}' has no port '${port}'`);
    return core.nets[p.net]!.width;
  };
  const mg = o.merge && N > 1 ? o.merge : null;
  const tagW = coreTagBits(N, mg !== null);
  const time = o.time ?? null;
  if (time && o.period !== undefined)
    throw new Error(`lanes '${o.name}': a family ages by ticks (period, tickCode) or by global time, not both`);
  // The aging tick and the scan step go to every shard whatever its interval.
  if ((o.interval ?? 1) > 1 && (o.period !== undefined || time))
    throw new Error(`lanes '${o.name}': a shard with an initiation interval cannot age (ticks or global time)`);
  if ((o.period === undefined) !== (o.tickCode === undefined))
    throw new Error(`lanes '${o.name}': ticks need both the period and the tick op`);
  if (width('in_tag') !== tagW) throw new Error(`core '${core.name}': in_tag is ${width('in_tag')} bits, not ${tagW}`);
  return {
    m,
    o,
    N,
    S: o.shards,
    opW: width('in_op'),
    laneBits: laneBitsOf(N),
    shardBits: Math.log2(o.shards),
    mg,
    tagW,
    time,
    ticks: o.period !== undefined,
    II: o.interval ?? 1,
    width,
  };
}

/** f(j) for every lane j but lane i (in lane order), ORed. */
function others(m: ModuleBuilder, N: number, i: number, f: (j: number) => Sig): Sig {
  return anyOf(
    m,
    Array.from({ length: N }, (_, j) => j).flatMap((j) => (j === i ? [] : [f(j)])),
  );
}

/** A hold counter's next value: `from` on `start`, else down to 0. */
function countDown(m: ModuleBuilder, r: Sig, start: Sig, from = HOLD - 1): Sig {
  return m.mux(start, from, m.mux(r.eq(0), 0, r.sub(1)));
}

/**
 * The wrapper, built part by part (each below): the lanes' inputs, the shards' cores, the
 * dispatcher's registers, its grant rules, the issue stage and the shards' requests, then the
 * responses. A part's registers whose next values need later signals are closed by a later part
 * (`close…`). The calls stay in this order: nets and cells are numbered as they are made, and the
 * Verilog names and declares them in that order.
 */
export function buildLanes(o: LaneBuild): Design {
  const m = new ModuleBuilder(o.name);
  Object.assign(m.meta, o.meta);
  const sh = shapeOf(m, o);
  const iv = shardIntervals(sh);
  const lane = Array.from({ length: sh.N }, (_, i) => laneInput(sh, iv, i));
  const { coreIn, coreOut } = shardCores(sh);
  const rd = readiness(sh, coreOut);
  const gen = generationCount(sh);
  const seqBase = m.reg('seq_base', SEQ_BITS);
  const priority = rotatingPriority(m, { n: sh.N, advance: rd.go });
  const heads = headRegisters(sh, lane);
  const flags = generationFlags(sh, gen, heads.anyBcast);
  const fast = fastRule(sh, lane, heads, priority, rd, flags);
  const tick = agingTick(sh, heads, fast.top, rd, flags);
  const slow = slowRule(sh, lane, heads, iv, rd, flags, fast.top, tick);
  const member = mergeGroups(sh, lane, priority, flags, tick, fast.fastGrant);
  const grant = grants(sh, { lane, heads, priority, rd, flags, tick, pendGrant: slow.pendGrant, iv, member });
  const bcastNow = closeTicks(sh, heads, rd, tick, slow, coreOut);
  const nearNext = closeGeneration(sh, gen, flags, heads, grant, rd, tick.tickNow, bcastNow);
  const grantTo = shardRoutes(sh, lane, heads, iv, grant);
  const issue = issueStage(sh, { lane, heads, grant, grantTo, member, tickNow: tick.tickNow, bcastNow, rd });
  const seq = sequenceNumbers(sh, issue, seqBase);
  const tm = issueTime(sh, gen, issue, seq);
  coreIn.forEach((ci, s) => shardRequest(sh, ci, s, issue, tm));
  const responses = shardResponses(sh, coreOut);
  const nextReq = closeHeadRegisters(sh, lane, grant, heads, flags, nearNext);
  lane.forEach((l, i) => laneResponse(sh, l, i, { grant, nextReq, responses, issue, seq, clock: tm.clock, seqBase }));
  return m.build();
}

// ---- lanes: inputs and skid buffers --------------------------------------------------------

/**
 * A shard that takes an op once in `interval` cycles: granted again only when the interval has
 * passed (`shard<s>_wait` counts it down from each op sent to it, closed by shardRoutes); a lane
 * requests only then.
 */
function shardIntervals(sh: Shape) {
  const { m, S, II } = sh;
  const wait = II > 1 ? Array.from({ length: S }, (_, s) => m.reg(`shard${s}_wait`, bitsFor(II - 1))) : null;
  const shardIdle = wait ? wait.map((w) => w.eq(0)) : null;
  const allIdle = shardIdle ? shardIdle.reduce((a, b) => a.and(b)) : m.const(1, 1);
  return { wait, shardIdle, allIdle };
}
type ShardIntervals = ReturnType<typeof shardIntervals>;

/** Lane i's ports in, its skid input, its in-flight count, request and next response slot. */
function laneInput(sh: Shape, iv: ShardIntervals, i: number) {
  const { m, o, S } = sh;
  const valid = m.input(`in${i}_valid`, 1, `lane ${i}: request valid`);
  const op = m.input(`in${i}_op`, sh.opW, `lane ${i}: operation (the core's op codes)`);
  const key = m.input(`in${i}_key`, o.keyBits, `lane ${i}: key`);
  const tag = m.input(`in${i}_tag`, o.tagBits, `lane ${i}: tag, returned with the response`);
  const extras: Record<string, Sig> = {};
  for (const f of o.request)
    extras[f.name] = m.input(`in${i}_${f.port.replace(/^in_/, '')}`, f.width, `lane ${i}: ${f.name}`);
  const outReady = m.input(`out${i}_ready`, 1, `lane ${i}: response ready`);
  const data: Record<string, Sig> = { op, key, tag, ...extras };
  // The shard index, in the head register (the dispatcher compares the heads' shards first).
  const headFields = S > 1 ? { shard: m.h3(key, sh.shardBits, { seed: o.seed, salt: SHARD_SALT }) } : undefined;
  const sk = skidInput(m, {
    valid,
    op,
    flags: {
      ins: o.insertCodes,
      bcast: o.broadcastCodes,
      ...(o.tickCode !== undefined ? { tick: [o.tickCode] } : {}),
    } as Record<string, readonly number[]>,
    data,
    ...(headFields ? { headFields } : {}),
    name: `lane${i}_in`,
    lateRelease: true,
    readyAfterAccept: true,
    // The select forms below with ticks only: without them (global time, no aging) the grant has
    // no near-end or full flags in front of it, and on the BTBF 4 x 4 they gained nothing (README
    // "The grant three LUT levels after registers").
    acceptNeedsHead: sh.ticks,
  });
  const occ = inFlightCount(m, `lane${i}_occupancy`, o.queueDepth);
  const shard = S > 1 ? sk.headFields.shard! : null;
  const idle = iv.shardIdle ? (shard ? muxTree(m, iv.shardIdle, shard, ONCE) : iv.shardIdle[0]!) : null;
  // The head requests (valid, its lane's queue has room): without an interval a register
  // (`lane<i>_req`, its next value from the head's and the queue's next values), so the grants
  // read it straight from a register.
  const reqReg = idle ? null : m.reg(`lane${i}_req`, 1);
  const req = idle ? sk.headValid.and(occ.full.not()).and(idle) : reqReg!;
  // The response-queue slot of the lane's next granted request.
  const slot = m.reg(`lane${i}_slot`, Math.log2(o.queueDepth));
  return { sk, occ, req, reqReg, outReady, slot, shard };
}
type LaneIn = ReturnType<typeof laneInput>;

// ---- the shards' cores, on wires the dispatcher drives -------------------------------------

/**
 * Each shard takes its requests from the issue stage (the cycle after their grant), formed from
 * its registers by a few gates into the core's input registers (every family's input stage
 * registers its inputs as they arrive): the dispatcher grants only while every core will be ready
 * (`go`), so a request issued now enters its core now. Every request thus takes the same number
 * of cycles from its grant to its response, whichever shard it goes to, and each lane's
 * responses come back in its request order.
 */
function shardCores(sh: Shape) {
  const { m, o, S, time, mg, width } = sh;
  const core = o.core;
  const timePorts = time
    ? [
        'in_tplus',
        ...(time.block > 1 ? ['in_bcnt'] : []),
        'in_before',
        'in_scan',
        'in_scan_at',
        ...(mg ? ['in_last'] : []),
      ]
    : [];
  const coreIn = Array.from({ length: S }, (_, s) => {
    const w = (name: string, bits: number): Wire => m.wire(`shard${s}_${name}`, bits);
    return {
      valid: w('req_valid', 1),
      op: w('req_op', sh.opW),
      key: w('req_key', o.keyBits),
      tag: w('req_tag', sh.tagW),
      extras: o.request.map((f) => w(`req_${f.name}`, f.width)),
      // Global time: the core's time ports, formed in the issue stage with the request.
      time: timePorts.map((p) => w(`req_${p.replace(/^in_/, '')}`, width(p))),
    };
  });
  const coreOut = coreIn.map((ci, s) =>
    m.instance(`shard${s}`, core, {
      rst: m.rst,
      in_valid: ci.valid,
      in_op: ci.op,
      in_key: ci.key,
      in_tag: ci.tag,
      ...(core.inputs.some((p) => p.name === 'out_ready') ? { out_ready: m.const(1, 1) } : {}),
      ...Object.fromEntries(o.request.map((f, j) => [f.port, ci.extras[j]!])),
      ...Object.fromEntries(timePorts.map((p, j) => [p, ci.time[j]!])),
    }),
  );
  return { coreIn, coreOut };
}
type CoreIn = ReturnType<typeof shardCores>['coreIn'][number];
type CoreOut = Record<string, Sig>;

/**
 * Grants only while every core was ready last cycle (`go`, a register: no core's in_ready feeds
 * the grant within a cycle) and no broadcast (a clear, whose sweep lowers a core's in_ready
 * within a few cycles of its arrival) was granted in the last HOLD cycles. Besides a clear's
 * sweep a core is not ready only where the dispatcher keeps requests away from it (the cycles
 * after an op of a shard with an interval, a tick while tickReady is low), so every core is
 * still ready when a granted request reaches it the cycle after. The cores are the same
 * pipeline fed the same broadcasts in the same cycles, so they stall together.
 */
function readiness(sh: Shape, coreOut: CoreOut[]) {
  const { m, o } = sh;
  const coresReady = coreOut.map((co) => co.in_ready!).reduce((a, b) => a.and(b));
  const hold = m.reg('bcast_hold', bitsFor(HOLD));
  // go = every core was ready last cycle and the hold is 0 now: a register, set by issueStage.
  const go = m.reg('go', 1);
  // Ticks (a shift in every shard) only while no shard would stall on one, and not in the HOLD + 1
  // cycles after a tick or broadcast, before the shards' tick_ok has seen it and the dispatcher
  // has seen that: `tick_ok`, a register beside the dispatcher (every shard's port and the hold,
  // so no net from the shards enters the grant). The cycle right after a tick or broadcast needs
  // no gate of its own: after a tick only its pending insert is granted, after a broadcast
  // nothing (go). (The hold is a defence: a tick is due that soon after an aging tick only with
  // g <= 4, whose ticks it delays, and no test has made it matter — a lane tick is a broadcast,
  // held after anyway; the tick_ok gate itself is tested.)
  const tickHold = sh.ticks && o.tickReady ? m.reg('tick_hold', bitsFor(HOLD)) : null;
  // A tick or broadcast granted last cycle (a register: the hold counts from it, HOLD on).
  const tickRecent = tickHold ? m.reg('tick_recent', 1) : null;
  const tickOkReg = tickHold ? m.reg('tick_ok', 1) : null;
  const tickOk: Sig = tickOkReg ?? m.const(1, 1);
  return { coresReady, hold, go, tickHold, tickRecent, tickOkReg, tickOk };
}
type Readiness = ReturnType<typeof readiness>;

// ---- the dispatcher ------------------------------------------------------------------------

/**
 * The generation count: the inserts of the generation granted before the last cycle, a register
 * updated from registers (itself, the last cycle's inserts, `lane<i>_issue_ins_granted`, and its
 * restart by a tick or broadcast a cycle late, `tick_recent`/`gen_restart`: closeGeneration), so
 * no adder or grant stands in front of it.
 */
function generationCount(sh: Shape) {
  const { m, o, N } = sh;
  const count = sh.ticks ? m.reg('gen_count', bitsFor(Math.max(o.period!, N))) : null;
  const insW = bitsFor(N);
  // The inserts granted last cycle, a register per lane (`lane<i>_issue_ins_granted`: the grant
  // and the head's insert flag), and their count (a table of them): no count follows a grant
  // within its cycle.
  const insQ = Array.from({ length: N }, (_, i) => m.reg(`lane${i}_issue_ins_granted`, 1));
  const lastIns = countOnes(m, insQ, insW);
  return { count, insW, insQ, lastIns };
}
type Generation = ReturnType<typeof generationCount>;

/**
 * What the grants read of the heads besides their requests: whether two heads want the same
 * shard (`same_<j>_<i>`, a register per pair of lanes) and whether a broadcast op is at a head
 * (`any_bcast`), both registers formed from the heads' next values (closeHeadRegisters); the
 * heads' insert and broadcast flags.
 */
function headRegisters(sh: Shape, lane: LaneIn[]) {
  const { m, N, S } = sh;
  const sameReg = new Map<string, Reg>();
  if (S > 1)
    for (let i = 0; i < N; i++)
      for (let j = 0; j < i; j++) sameReg.set(`${j}_${i}`, m.reg(`same_${j}_${i}`, 1, { reset: null }));
  const same = (j: number, i: number): Sig => (S > 1 ? sameReg.get(j < i ? `${j}_${i}` : `${i}_${j}`)! : m.const(1, 1));
  const ins = lane.map((l) => l.sk.head.ins!);
  const bcast = lane.map((l) => l.sk.head.bcast!);
  const anyBcastReg = m.reg('any_bcast', 1);
  const anyBcast: Sig = anyBcastReg;
  return { sameReg, same, ins, bcast, anyBcastReg, anyBcast };
}
type Heads = ReturnType<typeof headRegisters>;

/**
 * The end of a generation and slow mode. Near the end (fewer than N inserts left) is judged on
 * the count register alone, a cycle ahead: `gen_near` is 1 when the count of two cycles ago (the
 * inserts before the last two cycles) leaves fewer than 3N (no cycle grants more than N), so its
 * next value is a compare of the count register (no sum, no selection by the last cycle's
 * inserts) — a few cycles more of one op per cycle. (One op rather than queries as usual and one
 * insert: slow mode's rule, so the grants have one form in every mode and no "first insert" of
 * the cycle to find. Its cost grows as g shrinks against N, and with g < 3N every cycle is slow —
 * one op per cycle; README "Slow mode near the end of a generation".)
 */
function generationFlags(sh: Shape, gen: Generation, anyBcast: Sig) {
  const { m, o, N } = sh;
  const { count } = gen;
  const period = o.period ?? 0;
  // No insert left in the generation (full), the last cycle's inserts counted: the test of a
  // count x against the generation with c more inserts.
  const fullTest = (x: Sig, c: number): Sig => (period - c >= 0 ? x.eq(period - c) : m.const(0, 1));
  const nearReg = count && period >= 3 * N ? m.reg('gen_near', 1) : null;
  const nearFull = !count ? m.const(0, 1) : (nearReg ?? m.const(1, 1));
  // Full, exactly, where it matters: slow mode near the end grants one op per cycle, so there
  // the last cycle granted no insert or one, but in the first such cycle. Two flags of the count
  // register (`gen_full<c>`, c = 0, 1: the count is g - c; registers formed a cycle ahead from
  // the count's next value) and two of the last cycle's grants (`ins_none_q`, `ins_one_q`), so
  // full is one gate of registers; after two or more inserts near the end no insert (nor tick)
  // goes that cycle (`insBlock`: at most once a generation).
  const fullRegs = count ? [0, 1].map((c) => m.reg(`gen_full${c}`, 1, { reset: c === period ? 1 : 0 })) : null;
  const insNone = count ? m.reg('ins_none_q', 1, { reset: 1 }) : null;
  const insOne = count ? m.reg('ins_one_q', 1) : null;
  // Slow mode: a broadcast at a head, or (with ticks) near the end of a generation; with the near
  // flag a register of its own (`slow`, its next value from those of any_bcast and gen_near: the
  // same value), so the grants read it as one register.
  const slowReg = nearReg ? m.reg('slow', 1) : null;
  const slow: Sig = slowReg ?? anyBcast.or(nearFull);
  const full = fullRegs ? insNone!.and(fullRegs[0]!).or(insOne!.and(fullRegs[1]!)) : m.const(0, 1);
  // No insert now: full, or near the end after a cycle of two or more inserts — by the last
  // cycle's inserts, the full flag of none, of one, or the near flag (a select of registers).
  const insBlock = fullRegs ? m.mux(insNone!, fullRegs[0]!, m.mux(insOne!, fullRegs[1]!, nearFull)) : m.const(0, 1);
  return { period, fullTest, nearReg, fullRegs, insNone, insOne, slowReg, slow, full, insBlock };
}
type GenerationFlags = ReturnType<typeof generationFlags>;

/** Fast mode: a requesting head no earlier head of the cycle wants the same shard with; and the first head. */
function fastRule(
  sh: Shape,
  lane: LaneIn[],
  heads: Heads,
  priority: RotatingPriority,
  rd: Readiness,
  flags: GenerationFlags,
) {
  const { m, N } = sh;
  const prec = priority.before;
  const shardFree = lane.map((_, i) =>
    others(m, N, i, (j) => lane[j]!.req.and(heads.same(j, i)).and(prec(j, i))).not(),
  );
  const fastGrant = lane.map((l, i) => rd.go.and(flags.slow.not()).and(l.req).and(shardFree[i]!));
  // The first requesting head in priority order.
  const top = priority.first(lane.map((l) => l.req));
  return { fastGrant, top };
}

/**
 * The aging tick is due when the generation is full (so near its end: slow mode) and the first
 * head is an insert. After an aging tick the insert that made it goes first and alone
 * (`tick_lane`, one-hot), so nothing is ordered between the tick and that insert (the model ticks
 * right before it). None in a family without ticks (global time or no aging).
 */
function agingTick(sh: Shape, heads: Heads, top: Sig[], rd: Readiness, flags: GenerationFlags) {
  const { m, N, ticks } = sh;
  const topIns = ticks ? top.map((t, i) => t.and(heads.ins[i]!)) : [];
  const pend = ticks ? m.reg('tick_lane', N) : null;
  // Whether an insert is pending: a register of its own (tick_lane is one-hot or 0).
  const pendAny = pend ? m.reg('tick_pending', 1) : m.const(0, 1);
  const pendBit = (i: number): Sig => (pend ? pend.bit(i) : m.const(0, 1));
  // The tick goes now (`tickCond`: a gate of registers) for the lane whose insert is the first
  // head (`tickAt`, one-hot or 0): the pending lane is formed from it, not from tickNow, so no OR
  // over the lanes stands in front of it.
  const tickCond = ticks ? flags.full.and(rd.go).and(rd.tickOk).and(pendAny.not()) : null;
  const tickAt = tickCond ? topIns.map((t) => tickCond.and(t)) : [];
  const tickNow = tickCond ? anyOf(m, tickAt) : m.const(0, 1);
  return { pend, pendAny, pendBit, tickAt, tickNow };
}
type AgingTick = ReturnType<typeof agingTick>;

/**
 * Slow mode grants the first head alone if it may go: not an insert into a full generation (the
 * tick goes first) or after two or more inserts near the end (insBlock), a broadcast only with
 * every shard idle (a shard with an interval), a tick op only while no shard would stall on it;
 * after a tick, the pending insert alone (`pendGrant`).
 */
function slowRule(
  sh: Shape,
  lane: LaneIn[],
  heads: Heads,
  iv: ShardIntervals,
  rd: Readiness,
  flags: GenerationFlags,
  top: Sig[],
  tick: AgingTick,
): { slowGrant: Sig[]; pendGrant: Sig[] } {
  const { ins, bcast } = heads;
  const slowOk = lane.map((_, i) => {
    const idle = bcast[i]!.not().or(iv.allIdle);
    return sh.ticks
      ? ins[i]!.and(flags.insBlock)
          .not()
          .and(idle)
          .and(lane[i]!.sk.head.tick!.and(bcast[i]!).and(rd.tickOk.not()).not())
      : idle;
  });
  // A broadcast at a head: the first head alone.
  const slowGrant = lane.map((_, i) => rd.go.and(heads.anyBcast).and(top[i]!).and(slowOk[i]!));
  const pendGrant = lane.map((l, i) => rd.go.and(tick.pendBit(i)).and(l.req));
  return { slowGrant, pendGrant };
}

/**
 * Merging (fast mode, no insert pending after a tick): a query or insert head whose key equals
 * that of an earlier head granted as its shard's one access joins that access (the group: same
 * key, same shard). Null without merging.
 */
function mergeGroups(
  sh: Shape,
  lane: LaneIn[],
  priority: RotatingPriority,
  flags: GenerationFlags,
  tick: AgingTick,
  fastGrant: Sig[],
): Sig[] | null {
  const { m, N, mg } = sh;
  // Each head's op among the three the family merges, decoded once.
  const kind = mg
    ? lane.map((l) => ({
        query: l.sk.data.op!.eq(mg.query),
        insert: l.sk.data.op!.eq(mg.insert),
        testAndInsert: l.sk.data.op!.eq(mg.testAndInsert),
      }))
    : null;
  if (!kind) return null;
  // The heads' keys compared once per pair.
  const keyEq: Sig[][] = lane.map(() => Array.from({ length: N }, () => m.const(0, 1)));
  for (let i = 0; i < N; i++)
    for (let j = i + 1; j < N; j++) keyEq[i]![j] = keyEq[j]![i] = lane[i]!.sk.data.key!.eq(lane[j]!.sk.data.key!);
  return lane.map((l, i) =>
    flags.slow
      .not()
      .and(tick.pendAny.not())
      .and(l.req)
      .and(kind[i]!.query.or(kind[i]!.insert))
      .and(
        others(m, N, i, (j) =>
          priority
            .before(j, i)
            .and(fastGrant[j]!)
            .and(kind[j]!.query.or(kind[j]!.insert).or(kind[j]!.testAndInsert))
            .and(keyEq[j]![i]!),
        ),
      ),
  );
}

/**
 * Each lane's grant. Without ticks (no near rule, no pending insert) the fast and broadcast rules
 * are one: a requesting head is granted unless an earlier one requests, with a broadcast at a
 * head, or wants its shard — each earlier lane one gate of registers (req (not with an interval),
 * prec, any_bcast, same), so the grant is two levels of gates after them (three from four lanes
 * on). With ticks the same rule with slow mode in place of the broadcast (near the end of a
 * generation the first head alone too), slowOk's terms for the first head (no `idle` term: with
 * ticks no shard has an interval), nothing but the pending insert after a tick. They are grouped
 * so that the grant is three LUT levels after registers: (!slow | slowOk) split into its tick part
 * and its insert part, the insert part a gate of (slow and the head's insert flag) and insBlock.
 */
function grants(
  sh: Shape,
  d: {
    lane: LaneIn[];
    heads: Heads;
    priority: RotatingPriority;
    rd: Readiness;
    flags: GenerationFlags;
    tick: AgingTick;
    pendGrant: Sig[];
    iv: ShardIntervals;
    member: Sig[] | null;
  },
): Sig[] {
  const { m, N } = sh;
  const { lane, rd, flags } = d;
  const { same, ins, bcast, anyBcast } = d.heads;
  const prec = d.priority.before;
  const { slow, insBlock } = flags;
  return lane.map((_, i) => {
    const g = sh.ticks
      ? rd.go
          .and(lane[i]!.req)
          .and(d.tick.pendAny.not())
          .and(others(m, N, i, (j) => lane[j]!.req.and(prec(j, i)).and(slow.or(same(j, i)))).not())
          .and(slow.not().or(lane[i]!.sk.head.tick!.and(bcast[i]!).and(rd.tickOk.not()).not()))
          .and(slow.and(ins[i]!).and(insBlock).not())
          .or(d.pendGrant[i]!)
      : rd.go
          .and(lane[i]!.req)
          .and(others(m, N, i, (j) => lane[j]!.req.and(prec(j, i)).and(anyBcast.or(same(j, i)))).not())
          .and(sh.II > 1 ? anyBcast.and(bcast[i]!).and(d.iv.allIdle.not()).not() : m.const(1, 1));
    return d.member ? g.or(d.member[i]!) : g;
  });
}

/**
 * The pending insert after a tick, the broadcast granted now (`bcastNow`, returned) and the tick
 * hold and tick_ok registers closed.
 */
function closeTicks(
  sh: Shape,
  heads: Heads,
  rd: Readiness,
  tick: AgingTick,
  slow: { slowGrant: Sig[]; pendGrant: Sig[] },
  coreOut: CoreOut[],
): Sig {
  const { m } = sh;
  const { pend, pendAny, tickAt, tickNow } = tick;
  // (A tick goes only while no insert is pending, so tick_lane is 0 then; otherwise it keeps its
  // lane until that lane is granted.)
  if (pend) {
    const stay = anyOf(m, slow.pendGrant).not();
    pend.next(m.cat(...tickAt.map((t, i) => t.or(pend.bit(i).and(stay))).reverse()));
    (pendAny as Reg).next(tickNow.or(pendAny.and(stay)));
  }
  // (Not with an insert pending after a tick, which goes alone.)
  const bcastGrant = heads.bcast.map((b, i) => slow.slowGrant[i]!.and(b).and(pendAny.not()));
  const bcastNow = anyOf(m, bcastGrant);
  const { tickRecent, tickHold, tickOkReg } = rd;
  tickRecent?.next(bcastNow.or(tickNow));
  if (tickRecent) {
    const holdNext = countDown(m, tickHold!, tickRecent, HOLD);
    tickHold!.next(holdNext);
    tickOkReg!.next(
      coreOut
        .map((co) => co[sh.o.tickReady!]!)
        .reduce((a, b) => a.and(b))
        .and(holdNext.eq(0)),
    );
  }
  return bcastNow;
}

/**
 * The last cycle's insert registers and the generation count closed; returns gen_near's next
 * value (slow's is formed from it). A tick or broadcast restarts the generation (nothing else is
 * granted in its cycle, so the last cycle's inserts are 0 the cycle after it). The restart
 * reaches the count and its flags a cycle late, from a register (`tick_recent`, or `gen_restart`
 * without a tick hold), so no grant enters their next values: in the cycle after a restart they
 * still describe the generation before it — at least as full as the new one, so the grants are at
 * most more cautious, and that cycle grants only the insert pending after a tick (or nothing: the
 * hold after a broadcast) — and from the cycle after that they are the new generation's.
 */
function closeGeneration(
  sh: Shape,
  gen: Generation,
  flags: GenerationFlags,
  heads: Heads,
  grant: Sig[],
  rd: Readiness,
  tickNow: Sig,
  bcastNow: Sig,
): Sig | null {
  const { m, N } = sh;
  const { count, insW, insQ, lastIns } = gen;
  const { nearReg, fullRegs, insNone, insOne, fullTest, period } = flags;
  const insNext = grant.map((g, i) => g.and(heads.ins[i]!));
  insQ.forEach((r, i) => r.next(insNext[i]!));
  insNone?.next(anyOf(m, insNext).not());
  insOne?.next(truthTable(m, insNext, (v) => (popcount(v) === 1 ? 1 : 0)));
  if (!count) return null;
  const restart = rd.tickRecent ?? m.reg('gen_restart', 1);
  if (!rd.tickRecent) (restart as Reg).next(tickNow.or(bcastNow));
  count.next(m.mux(restart, 0, count.add(lastIns.zext(count.width))));
  // A flag's next value tests count + lastIns, that is the count register itself against a
  // threshold lowered by lastIns: each threshold's test is formed from the register and the
  // flag selects among them by lastIns (no adder before the compare).
  const ahead = (test: (x: Sig, k: number) => Sig, c: number, formed: Map<number, Sig>): Sig =>
    muxTree(
      m,
      Array.from({ length: 1 << insW }, (_, d) => {
        const k = c + Math.min(d, N);
        if (!formed.has(k)) formed.set(k, test(count, k));
        return formed.get(k)!;
      }),
      lastIns,
      ONCE,
    );
  const fullAt = new Map<number, Sig>();
  const nearNext = nearReg ? m.mux(restart, 0, count.gt(period - 3 * N)) : null;
  if (nearReg) nearReg.next(nearNext!);
  fullRegs!.forEach((r, c) => r.next(m.mux(restart, c === period ? 1 : 0, ahead(fullTest, c, fullAt))));
  return nearNext;
}

/**
 * Lane i is granted to shard s (its head's shard, or a broadcast: every shard), formed once, for
 * the shards' interval counters (closed here) and the issue registers.
 */
function shardRoutes(
  sh: Shape,
  lane: LaneIn[],
  heads: Heads,
  iv: ShardIntervals,
  grant: Sig[],
): (i: number, s: number) => Sig {
  const { m, S } = sh;
  const grantToMemo = new Map<string, Sig>();
  const grantTo = (i: number, s: number): Sig => {
    const k = `${i}_${s}`;
    if (!grantToMemo.has(k))
      grantToMemo.set(k, grant[i]!.and(S > 1 ? heads.bcast[i]!.or(lane[i]!.shard!.eq(s)) : m.const(1, 1)));
    return grantToMemo.get(k)!;
  };
  iv.wait?.forEach((w, s) => {
    const sent = anyOf(
      m,
      lane.map((_, i) => grantTo(i, s)),
    );
    w.next(m.mux(sent, sh.II - 1, m.mux(iv.shardIdle![s]!, 0, w.sub(1))));
  });
  return grantTo;
}

// ---- the issue stage -----------------------------------------------------------------------

/**
 * The grants and the granted heads are registered; the cycle after, the shards' requests, the
 * sequence numbers and the global time are formed from those registers alone, so within its
 * cycle a grant feeds only the dispatcher's control registers (the skid inputs' head and skid,
 * the heads' request, pair and broadcast registers, the pending insert after a tick, tick and
 * interval state, the last cycle's inserts) and the issue registers (the grant, its insert, its
 * shard, its broadcast): the skid's data store and the lane's queue count step from the issue
 * stage, and the counts of the cycle's ops and inserts are formed there. Every granted op takes
 * this stage, so the order of the answers is kept. Closes `go` and the broadcast hold.
 */
function issueStage(
  sh: Shape,
  d: {
    lane: LaneIn[];
    heads: Heads;
    grant: Sig[];
    grantTo: (i: number, s: number) => Sig;
    member: Sig[] | null;
    tickNow: Sig;
    bcastNow: Sig;
    rd: Readiness;
  },
) {
  const { m, o, S, mg } = sh;
  const { lane, rd } = d;
  const gQ = d.grant.map((g, i) => m.pipe(g, 1, `lane${i}_issue`));
  const iss = lane.map((l, i) => {
    const p = (x: Sig, name: string): Sig => m.pipe(x, 1, `lane${i}_issue_${name}`, { reset: null });
    return {
      op: p(l.sk.data.op!, 'op'),
      key: p(l.sk.data.key!, 'key'),
      tag: p(l.sk.data.tag!, 'tag'),
      extras: o.request.map((f, j) => p(l.sk.data[f.name]!, `x${j}`)),
      shard: l.shard ? p(l.shard, 'shard') : null,
      member: d.member ? p(d.member[i]!, 'member') : null,
    };
  });
  const tickQ = sh.ticks ? m.pipe(d.tickNow, 1, 'issue_tick') : m.const(0, 1);
  // Lane i was granted to shard s: a register per lane and shard, so the shards' selects are
  // formed from registers without a compare.
  const toQ = lane.map((_, i) =>
    Array.from({ length: S }, (_, s) => m.pipe(d.grantTo(i, s), 1, `lane${i}_issue_to${s}`)),
  );
  const kindQ = mg
    ? iss.map((x) => ({
        query: x.op.eq(mg.query),
        insert: x.op.eq(mg.insert),
        testAndInsert: x.op.eq(mg.testAndInsert),
      }))
    : null;
  // A broadcast issued: a register of the broadcast rule's grant (`bcastNow`: a broadcast is
  // granted alone, to the head first in priority order, which the rule reads from the request
  // and priority registers, not from the pair registers), so the issue stage's broadcast (the
  // time's clear, the hold, the shards' drop) is a register.
  const bcastNowQ = m.pipe(d.bcastNow, 1, 'issue_bcast');
  // The hold after a broadcast counts from its issue (a cycle after its grant, so from HOLD - 1),
  // and no grant follows a cycle that could grant a broadcast (go, and a broadcast at a head that
  // requests), so neither register follows this cycle's grants. (While a broadcast waits behind
  // other heads, grants every other cycle; the priority order rotates over those cycles only.)
  const bcastAsks = anyOf(
    m,
    lane.map((l, i) => l.req.and(d.heads.bcast[i]!)),
  );
  rd.hold.next(countDown(m, rd.hold, bcastNowQ));
  rd.go.next(rd.coresReady.and(rd.go.and(bcastAsks).not()).and(bcastNowQ.not()).and(rd.hold.gt(1).not()));
  return { gQ, iss, tickQ, toQ, kindQ, bcastNowQ };
}
type Issue = ReturnType<typeof issueStage>;

/**
 * Sequence numbers: lane order within the cycle; with merging, shard order (a shard's ops are its
 * group), and within a group its queries first, then its test-and-insert, then the rest, each in
 * lane order (a group answers as of before its insert; with global time its inserts fall at
 * consecutive times, the first one's its answer's). A granted op's place within its cycle
 * (`offQ`, 0..N-1) and the cycle's grant count are counted in the issue stage from its registers
 * (the issued grants, inserts, shards and ops), so no count follows a grant in its cycle; the
 * place is added to `seq_base` (the ops of every earlier cycle, a register, closed here) for the
 * response queue's meta.
 */
function sequenceNumbers(sh: Shape, issue: Issue, seqBase: Reg) {
  const { m, N } = sh;
  const { gQ, iss, kindQ } = issue;
  const offW = bitsFor(N);
  const offQ: Sig[] = [];
  // The issued ops of lanes j and i: lane j's shard comes before lane i's (or is the same).
  const shardLt = (j: number, i: number, orEq: boolean): Sig => {
    const a = iss[j]!.shard!;
    const b = iss[i]!.shard!;
    return orEq ? a.le(b) : a.lt(b);
  };
  if (kindQ) {
    const cls = kindQ.map(({ query: a, testAndInsert: b }) => ({ a, b, c: a.or(b).not() }));
    for (let i = 0; i < N; i++) {
      const x = cls[i]!;
      const before = (j: number): Sig => {
        const y = cls[j]!;
        const rank = y.a.and(x.a.not()).or(y.b.and(x.c));
        const sameClass = y.a.and(x.a).or(y.b.and(x.b)).or(y.c.and(x.c));
        const inGroup = j < i ? rank.or(sameClass) : rank;
        return m.mux(iss[j]!.shard!.eq(iss[i]!.shard!), inGroup, shardLt(j, i, false));
      };
      offQ.push(
        countOnes(
          m,
          gQ.flatMap((g, j) => (j === i ? [] : [g.and(before(j))])),
          offW,
        ),
      );
    }
  } else for (let i = 0; i < N; i++) offQ.push(countOnes(m, gQ.slice(0, i), offW));
  const grantedQ = countOnes(m, gQ, offW);
  seqBase.next(seqBase.add(grantedQ.zext(SEQ_BITS)));
  return { offQ, grantedQ, shardLt };
}
type Sequence = ReturnType<typeof sequenceNumbers>;

/**
 * The global time of each issued op (with global time; else nothing): inserts issued before lane
 * i's op in the cycle's order, counted in the issue stage from the issued inserts (`insQ`, a
 * register per lane). Without merging: in lanes before it. With merging and global time: in
 * shards before its shard (its group's first insert is then at that time), and with them its
 * group's inserts (`insLast`: the group's last insert is one before that count).
 */
function issueTime(sh: Shape, gen: Generation, issue: Issue, seq: Sequence) {
  const { m, N, S, time, mg, width } = sh;
  const { insW, insQ, lastIns } = gen;
  /** Inserts among the granted lanes before lane i (lane order), and in all: a prefix count. */
  const insPrefix = (bits: Sig[]): { before: Sig[]; all: Sig } => {
    const before = Array.from({ length: N }, (_, i) => countOnes(m, bits.slice(0, i), insW));
    return { before, all: countOnes(m, bits, insW) };
  };
  const insA = insPrefix(insQ);
  const insByShard = (orEq: boolean): Sig[] =>
    insQ.map((_, i) =>
      countOnes(
        m,
        insQ.flatMap((q, j) => (j === i && !orEq ? [] : [q.and(seq.shardLt(j, i, orEq))])),
        insW,
      ),
    );
  const timedMerge = !!(time && mg);
  const insBefore = timedMerge ? insByShard(false) : insA.before;
  const insLast = timedMerge ? insByShard(true) : null;
  const inserted = lastIns;
  const clock = time ? globalTime(m, time, { S, N, inserted, insertBits: insQ, clear: issue.bcastNowQ, width }) : null;
  // Global time: lag + c for every count c of a cycle's inserts, from registers only, so the
  // issued ops (through the insert counts) select a sum rather than feed an adder.
  const lagPlus = clock
    ? Array.from({ length: 1 << insW }, (_, c) =>
        c === 0 ? clock.lag : clock.lag.add(m.const(Math.min(c, N), clock.countBits)),
      )
    : [];
  const lagAfter = (n: Sig): Sig => muxTree(m, lagPlus, n, ONCE);
  const beforeLane = clock ? insBefore.map(lagAfter) : [];
  // The time of a group's last insert: lag + (its count, the group's inserts included) - 1.
  const lastLane =
    clock && insLast
      ? insLast.map((n) =>
          muxTree(
            m,
            lagPlus.map((_, c) => lagPlus[Math.max(c - 1, 0)]!),
            n,
            ONCE,
          ),
        )
      : null;
  const scanAt = clock ? lagAfter(inserted) : null;
  return { clock, beforeLane, lastLane, scanAt };
}
type IssueTime = ReturnType<typeof issueTime>;

/**
 * Shard s's request: the lane issued to it (with merging, its group's leader and members), a
 * broadcast (to every shard), or the aging tick; each grant rule grants one lane at most to a
 * shard, so the lanes issued to a shard are a one-hot select (but for a merge group's members).
 */
function shardRequest(sh: Shape, ci: CoreIn, s: number, issue: Issue, tm: IssueTime): void {
  const { m, o, N, opW, mg, time, laneBits } = sh;
  const { iss, toQ, tickQ, kindQ, bcastNowQ } = issue;
  const { clock } = tm;
  // Lanes issued to this shard (with merging, the group's leader and members): registers of
  // the grant to it (a broadcast's grant is to every shard).
  const to = toQ.map((t) => t[s]!);
  // The lane whose request the shard takes: the group's leader (no member is a broadcast).
  const sel = iss[0]!.member ? to.map((t, i) => t.and(iss[i]!.member!.not())) : to;
  const selAny = anyOf(m, sel);
  // Global time: a shard issued nothing in a cycle with a scan step gets the step alone.
  m.assignWire(ci.valid, clock ? selAny.or(clock.scanNow) : selAny.or(tickQ));
  // (Never selected in a family that does not age: tickQ is 0 there.)
  const tickOp = m.const(o.tickCode ?? time?.scanCode ?? 0, opW);
  let op = oneHotSelect(
    m,
    sel,
    iss.map((d) => d.op),
    opW,
  );
  // A group with a query and an insert runs as one test-and-insert.
  if (mg && kindQ) {
    const has = (k: 'query' | 'insert'): Sig =>
      anyOf(
        m,
        to.map((t, i) => t.and(kindQ[i]![k])),
      );
    op = m.mux(has('query').and(has('insert')), m.const(mg.testAndInsert, opW), op);
  }
  m.assignWire(ci.op, clock ? m.mux(selAny, op, tickOp) : m.mux(tickQ, tickOp, op));
  m.assignWire(
    ci.key,
    oneHotSelect(
      m,
      sel,
      iss.map((d) => d.key),
      o.keyBits,
    ),
  );
  // A broadcast answers once (from shard 0), the tick and a lone scan step not at all.
  const dropBcast = s === 0 ? m.const(0, 1) : bcastNowQ;
  const drop = clock ? selAny.not().or(dropBcast) : tickQ.or(dropBcast);
  if (tm.clock) shardTime(m, ci, sel, tm.clock, tm);
  if (mg) m.assignWire(ci.tag, m.cat(drop, ...[...to].reverse()));
  else
    m.assignWire(
      ci.tag,
      m.cat(
        drop,
        oneHotSelect(
          m,
          sel,
          Array.from({ length: N }, (_, i) => m.const(i, laneBits)),
          laneBits,
        ),
      ),
    );
  o.request.forEach((f, j) =>
    m.assignWire(
      ci.extras[j]!,
      oneHotSelect(
        m,
        sel,
        iss.map((d) => d.extras[j]!),
        f.width,
      ),
    ),
  );
}

/** Global time: the shard's time ports, the selected lane's times among the cycle's. */
function shardTime(
  m: ModuleBuilder,
  ci: CoreIn,
  sel: Sig[],
  clock: NonNullable<IssueTime['clock']>,
  tm: IssueTime,
): void {
  const fields = [
    clock.tplus,
    ...(clock.bcnt ? [clock.bcnt] : []),
    oneHotSelect(m, sel, tm.beforeLane, clock.countBits),
    clock.scanNow,
    tm.scanAt!,
    ...(tm.lastLane ? [oneHotSelect(m, sel, tm.lastLane, clock.countBits)] : []),
  ];
  fields.forEach((f, j) => m.assignWire(ci.time[j]!, f));
}

// ---- responses: from the shards into each lane's response queue ---------------------------

/** Each shard's response as every lane sees it (a kept response, its data; without merging its lane), formed once. */
function shardResponses(sh: Shape, coreOut: CoreOut[]) {
  const { m, o, mg, tagW, laneBits } = sh;
  return coreOut.map((co) => {
    const t = co.out_tag!;
    return {
      t,
      kept: co.out_valid!.and(t.bit(tagW - 1).not()),
      data: o.response.length ? m.cat(...o.response.map((f) => co[f.port]!)) : m.const(0, 1),
      lane: mg ? null : t.slice(tagW - 2, tagW - 1 - laneBits),
    };
  });
}
type ShardResponse = ReturnType<typeof shardResponses>[number];

/**
 * The registers formed from the heads' next values closed: with ticks each a select by the
 * lane's grant (a grant needs a valid head, `acceptNeedsHead`) between its values with the head
 * kept and taken, formed without the grant, so they follow a grant by a gate or two; without
 * ticks formed from the heads' next values. Returns what the lanes' request registers need.
 */
function closeHeadRegisters(
  sh: Shape,
  lane: LaneIn[],
  grant: Sig[],
  heads: Heads,
  flags: GenerationFlags,
  nearNext: Sig | null,
) {
  const { m, S } = sh;
  const advanced = lane.map((l, i) => l.sk.advance(grant[i]!));
  const alt = sh.ticks ? advanced.map((adv) => adv.alt!) : null;
  const nextShard = alt ? null : advanced.map((adv) => (S > 1 ? adv.nextField('shard') : null));
  const byGrant = (i: number, f: (k: 0 | 1) => Sig): Sig => m.mux(grant[i]!, f(1), f(0));
  const bcastNext = (i: number, k: 0 | 1, extra?: Sig): Sig => {
    const t = alt![i]!.valid[k].and(alt![i]!.flag('bcast')[k]);
    return extra ? t.or(extra) : t;
  };
  heads.anyBcastReg.next(
    anyOf(
      m,
      lane.map((_, i) =>
        alt ? byGrant(i, (k) => bcastNext(i, k)) : advanced[i]!.headValidNext.and(advanced[i]!.next('bcast')),
      ),
    ),
  );
  // slow's next value: the near flag's folded into lane 0's terms (one OR of the lanes' terms).
  if (flags.slowReg)
    flags.slowReg.next(
      anyOf(
        m,
        lane.map((_, i) => byGrant(i, (k) => bcastNext(i, k, i === 0 ? nearNext! : undefined))),
      ),
    );
  // Two heads want one shard next cycle: the four compares of their kept and taken shards, selected
  // by the two grants.
  for (const [pair, r] of heads.sameReg) {
    const [j, i] = pair.split('_').map(Number) as [number, number];
    if (!alt) {
      r.next(nextShard![j]!.eq(nextShard![i]!));
      continue;
    }
    const sj = alt[j]!.field('shard');
    const si = alt[i]!.field('shard');
    r.next(byGrant(j, (a) => byGrant(i, (b) => sj[a].eq(si[b]))));
  }
  /** Lane i's head request next cycle, its queue's full flag's next value given. */
  return (i: number, fullNext: Sig): Sig =>
    alt ? byGrant(i, (k) => alt[i]!.valid[k].and(fullNext.not())) : advanced[i]!.headValidNext.and(fullNext.not());
}

/**
 * Lane i's answer: the shard that answers it in this cycle (a lane is granted once per cycle at
 * most and every request takes the same cycles to its response, so one shard at most answers a
 * lane in a cycle, in the lane's request order), registered before the queue's entries (a cycle
 * of latency): the select among the shards' answers is one path, the entry's write enable and
 * data another.
 */
function laneAnswer(sh: Shape, i: number, responses: ShardResponse[]): { valid: Sig; data: Sig } {
  const { m, N, tagW } = sh;
  const hits = responses.map((r) => r.kept.and(r.lane ? r.lane.eq(i) : r.t.bit(tagW - 2 - (N - 1 - i))));
  return {
    valid: m.pipe(anyOf(m, hits), 1, `lane${i}_ans_valid`),
    data: m.pipe(
      oneHotSelect(
        m,
        hits,
        responses.map((r) => r.data),
        responses[0]!.data.width,
      ),
      1,
      `lane${i}_ans_data`,
      { reset: null },
    ),
  };
}

/**
 * Lane i's word of meta for its response queue, formed as the op is issued: its seq, its tag,
 * with merging the zeroed-answer flag (a pure insert's answer is zero: its group's access may be
 * a test-and-insert), with global time the scan flag (the cycle's scan step follows this op, the
 * last granted in the cycle's order: lane order, or with merging the op whose place is the
 * cycle's last). Registered before the memory's write port (written two cycles after the grant,
 * long before the answer comes): the seq's adder (and the scan flag's table) end at a register.
 */
function laneMeta(
  sh: Shape,
  l: LaneIn,
  i: number,
  issue: Issue,
  seq: Sequence,
  clock: IssueTime['clock'],
  seqBase: Reg,
) {
  const { m, o } = sh;
  const { gQ, iss, kindQ } = issue;
  const { offQ, grantedQ } = seq;
  const zero = kindQ ? kindQ[i]!.insert : null;
  const last = (x: Sig): Sig => x.and(sh.mg ? offQ[i]!.add(1).eq(grantedQ) : anyOf(m, gQ.slice(i + 1)).not());
  const scanAfter = clock ? last(clock.scanNow.and(gQ[i]!)) : null;
  const rest = m.cat(iss[i]!.tag, ...(zero ? [zero] : []), ...(scanAfter ? [scanAfter] : []));
  const metaWord = m.cat(seqBase.add(offQ[i]!.zext(SEQ_BITS)), rest);
  const meta = {
    we: m.pipe(gQ[i]!, 1, `lane${i}_meta_we`),
    slot: m.pipe(l.slot, 1, `lane${i}_meta_slot`, { reset: null }),
    data: m.pipe(metaWord, 1, `lane${i}_meta_data`, { reset: null }),
  };
  if (meta.data.width !== metaBits(o.tagBits, !!sh.mg, !!clock)) throw new Error(`lanes '${o.name}': meta width`);
  return { meta, zero, scanAfter };
}

/** Lane i's skid input and slot counter closed, its response queue, and its ports out. */
function laneResponse(
  sh: Shape,
  l: LaneIn,
  i: number,
  d: {
    grant: Sig[];
    nextReq: (i: number, fullNext: Sig) => Sig;
    responses: ShardResponse[];
    issue: Issue;
    seq: Sequence;
    clock: IssueTime['clock'];
    seqBase: Reg;
  },
): void {
  const { m, o } = sh;
  const { gQ } = d.issue;
  l.sk.release(d.grant[i]!);
  l.sk.setReady(m.const(0, 1));
  l.slot.next(m.mux(gQ[i]!, l.slot.add(1), l.slot));
  const answer = laneAnswer(sh, i, d.responses);
  const { meta, zero, scanAfter } = laneMeta(sh, l, i, d.issue, d.seq, d.clock, d.seqBase);
  const rq = slotQueue(m, `lane${i}_rq`, o.queueDepth, meta, answer, l.outReady);
  const fullNext = l.occ.step(gQ[i]!, rq.pop);
  l.reqReg?.next(d.nextReq(i, fullNext));
  const w = rq.head.width;
  m.output(`in${i}_ready`, l.sk.ready, `lane ${i}: request ready (a register)`);
  m.output(`out${i}_valid`, rq.outValid, `lane ${i}: response valid`);
  m.output(`out${i}_tag`, rq.head.slice(w - 1 - SEQ_BITS, w - SEQ_BITS - o.tagBits), `lane ${i}: the request's tag`);
  m.output(
    `out${i}_seq`,
    rq.head.slice(w - 1, w - SEQ_BITS),
    `lane ${i}: the op's place in the linear order (mod 2^${SEQ_BITS})`,
  );
  let hi = w - SEQ_BITS - o.tagBits - 1;
  const zeroed = zero ? rq.head.bit(hi--) : null;
  if (scanAfter)
    m.output(
      `out${i}_scan`,
      rq.head.bit(hi--),
      `lane ${i}: every shard takes one background step (global time) right after this op in the linear order`,
    );
  o.response.forEach((f) => {
    const v = rq.head.slice(hi, hi - f.width + 1);
    m.output(`out${i}_${f.port.replace(/^out_/, '')}`, zeroed ? m.mux(zeroed, 0, v) : v, `lane ${i}: ${f.name}`);
    hi -= f.width;
  });
}

/**
 * The dispatcher's global time (LaneTime in src/families/types.ts): every lane's inserts counted
 * as T+ (wrapping at `wrap`) and b (mod `block`), and the phase of the scan steps (inserts mod S):
 * `scanNow` when this cycle's inserts reach the next multiple of S (N <= S: one step at most).
 * The time registers hold the time at the start of the previous issue cycle and `lag` that
 * cycle's inserts, so no adder chain runs from the grant into T+: a shard adds `lag` to the inserts before
 * its request (in_before; merging also in_last) and to the cycle's (in_scan_at). A clear restarts all.
 */
function globalTime(
  m: ModuleBuilder,
  time: { block: number; wrap: number },
  o: { S: number; N: number; inserted: Sig; insertBits: Sig[]; clear: Sig; width: (port: string) => number },
) {
  const tplusW = o.width('in_tplus');
  const countBits = o.width('in_before');
  const n = o.inserted;
  const lag = m.reg('time_lag', countBits);
  lag.next(m.mux(o.clear, 0, n.zext(countBits)));
  const tplus = m.reg('time_tplus', tplusW);
  const bcnt = time.block > 1 ? m.reg('time_bcnt', o.width('in_bcnt')) : null;
  const after = advanceTime(m, { t: tplus, b: bcnt, n: lag, wrap: time.wrap, nMax: o.N });
  tplus.next(m.mux(o.clear, 0, after.t));
  if (bcnt) bcnt.next(m.mux(o.clear, 0, after.b!));
  const sb = Math.log2(o.S);
  let scanNow: Sig;
  if (sb === 0) scanNow = n.any();
  else {
    const phase = m.reg('time_phase', sb);
    const sum = phase.zext(sb + 1).add(n.zext(sb + 1));
    // The step is due when the phase and the cycle's inserts reach S: with six bits or fewer of
    // phase and insert flags, a table of them (two LUT levels, no count and adder before it).
    const N = o.insertBits.length;
    scanNow =
      sb + N <= 6
        ? truthTable(m, [...o.insertBits, ...Array.from({ length: sb }, (_, b) => phase.bit(b))], (v) =>
            (v >> N) + popcount(v & ((1 << N) - 1)) >= o.S ? 1 : 0,
          )
        : sum.ge(o.S);
    phase.next(m.mux(o.clear, 0, m.mux(scanNow, sum.sub(o.S), sum).trunc(sb)));
  }
  return { tplus: tplus as Sig, bcnt: bcnt as Sig | null, scanNow, countBits, lag: lag as Sig };
}
