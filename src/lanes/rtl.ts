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

const orAll = (m: ModuleBuilder, xs: Sig[]): Sig => (xs.length ? xs.reduce((a, b) => a.or(b)) : m.const(0, 1));

/**
 * The number of ones among `bits`, `width` bits wide, as gates (a ripple of incrementers written
 * bit by bit, no adder cells): synthesis folds each bit of the count into the few LUTs its inputs
 * need, where adders would become a chain of carry cells.
 */
function countOnes(m: ModuleBuilder, bits: Sig[], width: number): Sig {
  // Up to four bits: each bit of the count a table of them, one LUT after its inputs however
  // synthesis shares the ripple's gates among counts of a prefix.
  if (bits.length > 1 && bits.length <= 4) {
    return m.cat(
      ...Array.from({ length: width }, (_, k) => table(m, bits, (v) => (popcount(v) >> (width - 1 - k)) & 1)),
    );
  }
  let acc: Sig[] = Array.from({ length: width }, () => m.const(0, 1));
  for (const b of bits) {
    let carry = b;
    acc = acc.map((x) => {
      const out = x.xor(carry);
      carry = x.and(carry);
      return out;
    });
  }
  return m.cat(...[...acc].reverse());
}

/**
 * A one-bit function of a few bits (`bits[0]` the index's low bit) as a mux tree of constants:
 * synthesis maps a function of four bits to one LUT, of six to two levels.
 */
function table(m: ModuleBuilder, bits: Sig[], f: (v: number) => number): Sig {
  const sel = m.cat(...[...bits].reverse());
  return muxTree(
    m,
    Array.from({ length: 1 << bits.length }, (_, v) => m.const(f(v) & 1, 1)),
    sel,
    ONCE,
  );
}

/** One-hot select: OR of (sel_j ? x_j : 0). */
function andOr(m: ModuleBuilder, sels: Sig[], xs: Sig[], width: number): Sig {
  const terms = sels.map((s, j) => m.mux(s, xs[j]!, m.const(0, width)));
  return terms.length ? terms.reduce((a, b) => a.or(b)) : m.const(0, width);
}

export function buildLanes(o: LaneBuild): Design {
  const N = o.lanes;
  const S = o.shards;
  const m = new ModuleBuilder(o.name);
  Object.assign(m.meta, o.meta);
  const core = o.core;
  const width = (port: string): number => {
    const p = [...core.inputs, ...core.outputs].find((q) => q.name === port);
    if (!p) throw new Error(`core '${core.name}' has no port '${port}'`);
    return core.nets[p.net]!.width;
  };
  const opW = width('in_op');
  const laneBits = laneBitsOf(N);
  const shardBits = Math.log2(S);
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
  // A family that does not age (a set or multiset filter): no generation count, no tick.
  const ticks = o.period !== undefined;
  if (width('in_tag') !== tagW) throw new Error(`core '${core.name}': in_tag is ${width('in_tag')} bits, not ${tagW}`);

  // A shard that takes an op once in `interval` cycles: granted again only when the interval has
  // passed (`shard<s>_wait` counts it down from each op sent to it); a lane requests only then.
  const II = o.interval ?? 1;
  const wait = II > 1 ? Array.from({ length: S }, (_, s) => m.reg(`shard${s}_wait`, bitsFor(II - 1))) : null;
  const shardIdle = wait ? wait.map((w) => w.eq(0)) : null;
  const allIdle = shardIdle ? shardIdle.reduce((a, b) => a.and(b)) : m.const(1, 1);

  // ---- lanes: inputs and skid buffers ------------------------------------------------------
  const lane = Array.from({ length: N }, (_, i) => {
    const valid = m.input(`in${i}_valid`, 1, `lane ${i}: request valid`);
    const op = m.input(`in${i}_op`, opW, `lane ${i}: operation (the core's op codes)`);
    const key = m.input(`in${i}_key`, o.keyBits, `lane ${i}: key`);
    const tag = m.input(`in${i}_tag`, o.tagBits, `lane ${i}: tag, returned with the response`);
    const extras: Record<string, Sig> = {};
    for (const f of o.request)
      extras[f.name] = m.input(`in${i}_${f.port.replace(/^in_/, '')}`, f.width, `lane ${i}: ${f.name}`);
    const outReady = m.input(`out${i}_ready`, 1, `lane ${i}: response ready`);
    const data: Record<string, Sig> = { op, key, tag, ...extras };
    // The shard index, in the head register (the dispatcher compares the heads' shards first).
    const headFields = S > 1 ? { shard: m.h3(key, shardBits, { seed: o.seed, salt: SHARD_SALT }) } : undefined;
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
      acceptNeedsHead: ticks,
    });
    const occ = laneCount(m, `lane${i}_occupancy`, o.queueDepth);
    const shard = S > 1 ? sk.headFields.shard! : null;
    const idle = shardIdle ? (shard ? muxTree(m, shardIdle, shard, ONCE) : shardIdle[0]!) : null;
    // The head requests (valid, its lane's queue has room): without an interval a register
    // (`lane<i>_req`, its next value from the head's and the queue's next values), so the grants
    // read it straight from a register.
    const reqReg = idle ? null : m.reg(`lane${i}_req`, 1);
    const req = idle ? sk.headValid.and(occ.full.not()).and(idle) : reqReg!;
    // The response-queue slot of the lane's next granted request.
    const slot = m.reg(`lane${i}_slot`, Math.log2(o.queueDepth));
    return { sk, occ, req, reqReg, outReady, slot, shard };
  });

  // ---- the shards' cores, on wires the dispatcher drives -------------------------------------
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
      op: w('req_op', opW),
      key: w('req_key', o.keyBits),
      tag: w('req_tag', tagW),
      extras: o.request.map((f) => w(`req_${f.name}`, f.width)),
      // Global time: the core's time ports, formed in the issue stage with the request.
      time: timePorts.map((p) => w(`req_${p.replace(/^in_/, '')}`, width(p))),
    };
  });
  // Each shard takes its requests from the issue stage (the cycle after their grant), formed from
  // its registers by a few gates into the core's input registers (every family's input stage
  // registers its inputs as they arrive): the dispatcher grants only while every core will be ready
  // (`go`), so a request issued now enters its core now. Every request thus takes the same number
  // of cycles from its grant to its response, whichever shard it goes to, and each lane's
  // responses come back in its request order.
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
  // Grants only while every core was ready last cycle (`go`, a register: no core's in_ready feeds
  // the grant within a cycle) and no broadcast (a clear, whose sweep lowers a core's in_ready
  // within a few cycles of its arrival) was granted in the last HOLD cycles. Besides a clear's
  // sweep a core is not ready only where the dispatcher keeps requests away from it (the cycles
  // after an op of a shard with an interval, a tick while tickReady is low), so every core is
  // still ready when a granted request reaches it the cycle after. The cores are the same
  // pipeline fed the same broadcasts in the same cycles, so they stall together.
  const coresReady = coreOut.map((co) => co.in_ready!).reduce((a, b) => a.and(b));
  const hold = m.reg('bcast_hold', bitsFor(HOLD));
  // go = every core was ready last cycle and the hold is 0 now: a register, set below.
  const go = m.reg('go', 1);
  // Ticks (a shift in every shard) only while no shard would stall on one, and not in the HOLD + 1
  // cycles after a tick or broadcast, before the shards' tick_ok has seen it and the dispatcher
  // has seen that: `tick_ok`, a register beside the dispatcher (every shard's port and the hold,
  // so no net from the shards enters the grant). The cycle right after a tick or broadcast needs
  // no gate of its own: after a tick only its pending insert is granted, after a broadcast
  // nothing (go). (The hold is a defence: a tick is due that soon after an aging tick only with
  // g <= 4, whose ticks it delays, and no test has made it matter — a lane tick is a broadcast,
  // held after anyway; the tick_ok gate itself is tested.)
  const tickHold = ticks && o.tickReady ? m.reg('tick_hold', bitsFor(HOLD)) : null;
  // A tick or broadcast granted last cycle (a register: the hold counts from it, HOLD on).
  const tickRecent = tickHold ? m.reg('tick_recent', 1) : null;
  const tickOkReg = tickHold ? m.reg('tick_ok', 1) : null;
  const tickOk: Sig = tickOkReg ?? m.const(1, 1);

  // ---- the dispatcher ------------------------------------------------------------------------
  // The generation count: the inserts of the generation granted before the last cycle, a register
  // updated from registers (itself, the last cycle's inserts, `lane<i>_issue_ins_granted`, and its
  // restart by a tick or broadcast a cycle late, `tick_recent`/`gen_restart`, below), so no adder
  // or grant stands in front of it.
  const count = ticks ? m.reg('gen_count', bitsFor(Math.max(o.period!, N))) : null;
  const insW = bitsFor(N);
  // The inserts granted last cycle, a register per lane (`lane<i>_issue_ins_granted`: the grant
  // and the head's insert flag), and their count (a table of them): no count follows a grant
  // within its cycle.
  const insQ = Array.from({ length: N }, (_, i) => m.reg(`lane${i}_issue_ins_granted`, 1));
  const lastIns = countOnes(m, insQ, insW);
  const seqBase = m.reg('seq_base', SEQ_BITS);
  // The priority order, rotating by one lane each cycle (lane 0 first after reset, then lane 1,
  // …): a register per pair of lanes, `prec_<j>_<i>` (j < i: lane j comes before lane i), so the
  // grants read the order straight from registers.
  const precReg = new Map<string, Reg>();
  for (let i = 0; i < N; i++)
    for (let j = 0; j < i; j++) precReg.set(`${j}_${i}`, m.reg(`prec_${j}_${i}`, 1, { reset: 1 }));
  /** Lane j comes before lane i in this cycle's priority order. */
  const prec = (j: number, i: number): Sig => (j < i ? precReg.get(`${j}_${i}`)! : precReg.get(`${i}_${j}`)!.not());
  // After a cycle that may grant (`go`), lane j comes before lane i when lane j - 1 came before
  // lane i - 1: the order rotates over the cycles that may grant, so every lane comes first in
  // turn even when those cycles alternate with others (a broadcast waiting at a head, below).
  for (const [pair, r] of precReg) {
    const [j, i] = pair.split('_').map(Number) as [number, number];
    r.next(m.mux(go, prec((j - 1 + N) % N, (i - 1 + N) % N), r));
  }
  // Whether two heads want the same shard: a register per pair of lanes (`same_<j>_<i>`), its next
  // value the compare of the heads' next shards, so the grants read it straight from a register.
  const sameReg = new Map<string, Reg>();
  if (S > 1)
    for (let i = 0; i < N; i++)
      for (let j = 0; j < i; j++) sameReg.set(`${j}_${i}`, m.reg(`same_${j}_${i}`, 1, { reset: null }));
  const same = (j: number, i: number): Sig => (S > 1 ? sameReg.get(j < i ? `${j}_${i}` : `${i}_${j}`)! : m.const(1, 1));
  const ins = lane.map((l) => l.sk.head.ins!);
  const bcast = lane.map((l) => l.sk.head.bcast!);
  // A broadcast op at a head: a register, from the heads' next values.
  const anyBcastReg = m.reg('any_bcast', 1);
  const anyBcast: Sig = anyBcastReg;
  const period = o.period ?? 0;
  // No insert left in the generation (full), the last cycle's inserts counted: the test of a
  // count x against the generation with c more inserts.
  const fullTest = (x: Sig, c: number): Sig => (period - c >= 0 ? x.eq(period - c) : m.const(0, 1));
  // Near the end (fewer than N inserts left) is judged on the count register alone, a cycle
  // ahead: `gen_near` is 1 when the count of two cycles ago (the inserts before the last two
  // cycles) leaves fewer than 3N (no cycle grants more than N), so its next value is a compare of
  // the count register (no sum, no selection by the last cycle's inserts) — a few cycles more of
  // one op per cycle. (One op rather than queries as usual and one insert: slow mode's rule, so
  // the grants have one form in every mode and no "first insert" of the cycle to find. Its cost
  // grows as g shrinks against N, and with g < 3N every cycle is slow — one op per cycle; README
  // "Slow mode near the end of a generation".)
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
  // gen_near's next value (slow's is formed from it).
  let nearNext: Sig | null = null;
  const others = (i: number, f: (j: number) => Sig): Sig =>
    orAll(
      m,
      lane.flatMap((_, j) => (j === i ? [] : [f(j)])),
    );
  // No earlier head of the cycle wants the same shard.
  const shardFree = lane.map((_, i) => others(i, (j) => lane[j]!.req.and(same(j, i)).and(prec(j, i))).not());
  const fastGrant = lane.map((l, i) => go.and(slow.not()).and(l.req).and(shardFree[i]!));
  // The first requesting head in priority order.
  const top = lane.map((l, i) => l.req.and(others(i, (j) => lane[j]!.req.and(prec(j, i))).not()));
  // The aging tick is due when the generation is full (so near its end: slow mode) and the first
  // head is an insert.
  const topIns = ticks ? top.map((t, i) => t.and(ins[i]!)) : [];
  // After an aging tick the insert that made it goes first and alone (`tick_lane`, one-hot), so
  // nothing is ordered between the tick and that insert (the model ticks right before it).
  // None in a family without ticks (global time or no aging).
  const pend = ticks ? m.reg('tick_lane', N) : null;
  // Whether an insert is pending: a register of its own (tick_lane is one-hot or 0).
  const pendAny = pend ? m.reg('tick_pending', 1) : m.const(0, 1);
  const pendBit = (i: number): Sig => (pend ? pend.bit(i) : m.const(0, 1));
  // The tick goes now (`tickCond`: a gate of registers) for the lane whose insert is the first
  // head (`tickAt`, one-hot or 0): the pending lane is formed from it, not from tickNow, so no OR
  // over the lanes stands in front of it.
  const tickCond = ticks ? full.and(go).and(tickOk).and(pendAny.not()) : null;
  const tickAt = tickCond ? topIns.map((t) => tickCond.and(t)) : [];
  const tickNow = tickCond ? orAll(m, tickAt) : m.const(0, 1);
  // What slow mode asks of the first head besides: not an insert into a full generation (the tick
  // goes first) or after two or more inserts near the end (insBlock), a broadcast only with every
  // shard idle (a shard with an interval), a tick op only while no shard would stall on it.
  const slowOk = lane.map((_, i) => {
    const idle = bcast[i]!.not().or(allIdle);
    return ticks
      ? ins[i]!.and(insBlock).not().and(idle).and(lane[i]!.sk.head.tick!.and(bcast[i]!).and(tickOk.not()).not())
      : idle;
  });
  // A broadcast at a head: the first head alone.
  const slowGrant = lane.map((_, i) => go.and(anyBcast).and(top[i]!).and(slowOk[i]!));
  const pendGrant = lane.map((l, i) => go.and(pendBit(i)).and(l.req));
  // Merging (fast mode, no insert pending after a tick): a query or insert head whose key equals
  // that of an earlier head granted as its shard's one access joins that access (the group: same
  // key, same shard).
  // Each head's op among the three the family merges, decoded once.
  const kind = mg
    ? lane.map((l) => ({
        query: l.sk.data.op!.eq(mg.query),
        insert: l.sk.data.op!.eq(mg.insert),
        testAndInsert: l.sk.data.op!.eq(mg.testAndInsert),
      }))
    : null;
  // The heads' keys compared once per pair.
  const keyEq: Sig[][] = kind ? lane.map(() => Array.from({ length: N }, () => m.const(0, 1))) : [];
  if (kind)
    for (let i = 0; i < N; i++)
      for (let j = i + 1; j < N; j++) keyEq[i]![j] = keyEq[j]![i] = lane[i]!.sk.data.key!.eq(lane[j]!.sk.data.key!);
  const member = kind
    ? lane.map((l, i) =>
        slow
          .not()
          .and(pendAny.not())
          .and(l.req)
          .and(kind[i]!.query.or(kind[i]!.insert))
          .and(
            others(i, (j) =>
              prec(j, i)
                .and(fastGrant[j]!)
                .and(kind[j]!.query.or(kind[j]!.insert).or(kind[j]!.testAndInsert))
                .and(keyEq[j]![i]!),
            ),
          ),
      )
    : null;
  const grant = lane.map((_, i) => {
    // Without ticks (no near rule, no pending insert) the fast and broadcast rules are one: a
    // requesting head is granted unless an earlier one requests, with a broadcast at a head, or
    // wants its shard — each earlier lane one gate of registers (req (not with an interval), prec,
    // any_bcast, same), so the grant is two levels of gates after them (three from four lanes on).
    // With ticks the same rule with slow mode in place of the broadcast (near the end of a
    // generation the first head alone too), slowOk's terms for the first head (no `idle` term:
    // with ticks no shard has an interval), nothing but the pending insert after a tick. They are
    // grouped so that the grant is three LUT levels after registers: (!slow | slowOk) split into
    // its tick part and its insert part, the insert part a gate of (slow and the head's insert
    // flag) and insBlock.
    const g = ticks
      ? go
          .and(lane[i]!.req)
          .and(pendAny.not())
          .and(others(i, (j) => lane[j]!.req.and(prec(j, i)).and(slow.or(same(j, i)))).not())
          .and(slow.not().or(lane[i]!.sk.head.tick!.and(bcast[i]!).and(tickOk.not()).not()))
          .and(slow.and(ins[i]!).and(insBlock).not())
          .or(pendGrant[i]!)
      : go
          .and(lane[i]!.req)
          .and(others(i, (j) => lane[j]!.req.and(prec(j, i)).and(anyBcast.or(same(j, i)))).not())
          .and(II > 1 ? anyBcast.and(bcast[i]!).and(allIdle.not()).not() : m.const(1, 1));
    return member ? g.or(member[i]!) : g;
  });
  // (A tick goes only while no insert is pending, so tick_lane is 0 then; otherwise it keeps its
  // lane until that lane is granted.)
  if (pend) {
    const stay = orAll(m, pendGrant).not();
    pend.next(m.cat(...tickAt.map((t, i) => t.or(pend.bit(i).and(stay))).reverse()));
    (pendAny as Reg).next(tickNow.or(pendAny.and(stay)));
  }
  // (Not with an insert pending after a tick, which goes alone.)
  const bcastGrant = lane.map((_, i) => slowGrant[i]!.and(bcast[i]!).and(pendAny.not()));
  const bcastNow = orAll(m, bcastGrant);
  const countDown = (r: Sig, start: Sig, from = HOLD - 1): Sig => m.mux(start, from, m.mux(r.eq(0), 0, r.sub(1)));
  tickRecent?.next(bcastNow.or(tickNow));
  if (tickRecent) {
    const holdNext = countDown(tickHold!, tickRecent, HOLD);
    tickHold!.next(holdNext);
    tickOkReg!.next(
      coreOut
        .map((co) => co[o.tickReady!]!)
        .reduce((a, b) => a.and(b))
        .and(holdNext.eq(0)),
    );
  }

  /** Inserts among the granted lanes before lane i (lane order), and in all: a prefix count. */
  const insPrefix = (bits: Sig[]): { before: Sig[]; all: Sig } => {
    const before = Array.from({ length: N }, (_, i) => countOnes(m, bits.slice(0, i), insW));
    return { before, all: countOnes(m, bits, insW) };
  };
  const insNext = grant.map((g, i) => g.and(ins[i]!));
  insQ.forEach((r, i) => r.next(insNext[i]!));
  insNone?.next(orAll(m, insNext).not());
  insOne?.next(table(m, insNext, (v) => (popcount(v) === 1 ? 1 : 0)));
  // A tick or broadcast restarts the generation (nothing else is granted in its cycle, so the
  // last cycle's inserts are 0 the cycle after it). The restart reaches the count and its flags a
  // cycle late, from a register (`tick_recent`, or `gen_restart` without a tick hold), so no grant
  // enters their next values: in the cycle after a restart they still describe the generation
  // before it — at least as full as the new one, so the grants are at most more cautious, and
  // that cycle grants only the insert pending after a tick (or nothing: the hold after a
  // broadcast) — and from the cycle after that they are the new generation's.
  if (count) {
    const restart = tickRecent ?? m.reg('gen_restart', 1);
    if (!tickRecent) (restart as Reg).next(tickNow.or(bcastNow));
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
    nearNext = nearReg ? m.mux(restart, 0, count.gt(period - 3 * N)) : null;
    if (nearReg) nearReg.next(nearNext!);
    fullRegs!.forEach((r, c) => r.next(m.mux(restart, c === period ? 1 : 0, ahead(fullTest, c, fullAt))));
  }
  // Lane i is granted to shard s (its head's shard, or a broadcast: every shard); formed once, for
  // the shards' interval counters and the issue registers.
  const grantToMemo = new Map<string, Sig>();
  const grantTo = (i: number, s: number): Sig => {
    const k = `${i}_${s}`;
    if (!grantToMemo.has(k))
      grantToMemo.set(k, grant[i]!.and(S > 1 ? bcast[i]!.or(lane[i]!.shard!.eq(s)) : m.const(1, 1)));
    return grantToMemo.get(k)!;
  };
  if (wait) {
    wait.forEach((w, s) => {
      const sent = orAll(
        m,
        lane.map((_, i) => grantTo(i, s)),
      );
      w.next(m.mux(sent, II - 1, m.mux(shardIdle![s]!, 0, w.sub(1))));
    });
  }

  // ---- the issue stage -----------------------------------------------------------------------
  // The grants and the granted heads are registered; the cycle after, the shards' requests, the
  // sequence numbers and the global time are formed from those registers alone, so within its
  // cycle a grant feeds only the dispatcher's control registers (the skid inputs' head and skid,
  // the heads' request, pair and broadcast registers, the pending insert after a tick, tick and
  // interval state, the last cycle's inserts) and the issue registers (the grant, its insert, its
  // shard, its broadcast): the skid's data store and the lane's queue count step from the issue stage, and
  // the counts of the cycle's ops and inserts are formed there. Every granted op takes this
  // stage, so the order of the answers is kept.
  const gQ = grant.map((g, i) => m.pipe(g, 1, `lane${i}_issue`));
  const iss = lane.map((l, i) => {
    const d = (x: Sig, name: string): Sig => m.pipe(x, 1, `lane${i}_issue_${name}`, { reset: null });
    return {
      op: d(l.sk.data.op!, 'op'),
      key: d(l.sk.data.key!, 'key'),
      tag: d(l.sk.data.tag!, 'tag'),
      extras: o.request.map((f, j) => d(l.sk.data[f.name]!, `x${j}`)),
      shard: l.shard ? d(l.shard, 'shard') : null,
      member: member ? d(member[i]!, 'member') : null,
    };
  });
  const tickQ = ticks ? m.pipe(tickNow, 1, 'issue_tick') : m.const(0, 1);
  // Lane i was granted to shard s: a register per lane and shard, so the shards' selects are
  // formed from registers without a compare.
  const toQ = lane.map((_, i) =>
    Array.from({ length: S }, (_, s) => m.pipe(grantTo(i, s), 1, `lane${i}_issue_to${s}`)),
  );
  const kindQ = mg
    ? iss.map((d) => ({
        query: d.op.eq(mg.query),
        insert: d.op.eq(mg.insert),
        testAndInsert: d.op.eq(mg.testAndInsert),
      }))
    : null;
  // A broadcast issued: a register of the broadcast rule's grant (`bcastNow`: a broadcast is
  // granted alone, to the head first in priority order, which the rule reads from the request
  // and priority registers, not from the pair registers), so the issue stage's broadcast (the
  // time's clear, the hold, the shards' drop) is a register.
  const bcastNowQ = m.pipe(bcastNow, 1, 'issue_bcast');
  // The hold after a broadcast counts from its issue (a cycle after its grant, so from HOLD - 1),
  // and no grant follows a cycle that could grant a broadcast (go, and a broadcast at a head that
  // requests), so neither register follows this cycle's grants. (While a broadcast waits behind
  // other heads, grants every other cycle; the priority order rotates over those cycles only.)
  const bcastAsks = orAll(
    m,
    lane.map((l, i) => l.req.and(bcast[i]!)),
  );
  hold.next(countDown(hold, bcastNowQ));
  go.next(coresReady.and(go.and(bcastAsks).not()).and(bcastNowQ.not()).and(hold.gt(1).not()));

  // Sequence numbers: lane order within the cycle; with merging, shard order (a shard's ops are
  // its group), and within a group its queries first, then its test-and-insert, then the rest,
  // each in lane order (a group answers as of before its insert; with global time its inserts
  // fall at consecutive times, the first one's its answer's). A granted op's place within its
  // cycle (`offQ`, 0..N-1) and the cycle's grant count are counted in the issue stage from its
  // registers (the issued grants, inserts, shards and ops), so no count follows a grant in its
  // cycle; the place is added to `seq_base` (the ops of every earlier cycle, a register) for the
  // response queue's meta.
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
          lane.flatMap((_, j) => (j === i ? [] : [gQ[j]!.and(before(j))])),
          offW,
        ),
      );
    }
  } else for (let i = 0; i < N; i++) offQ.push(countOnes(m, gQ.slice(0, i), offW));
  const grantedQ = countOnes(m, gQ, offW);
  seqBase.next(seqBase.add(grantedQ.zext(SEQ_BITS)));
  // Inserts issued before lane i's op in the cycle's order, counted in the issue stage from the
  // issued inserts (`insQ`, a register per lane). Without merging: in lanes before it. With
  // merging and global time: in shards before its shard (its group's first insert is then at that
  // time), and with them its group's inserts (`insLast`: the group's last insert is one before
  // that count).
  const insA = insPrefix(insQ);
  const insByShard = (orEq: boolean): Sig[] =>
    lane.map((_, i) =>
      countOnes(
        m,
        lane.flatMap((_, j) => (j === i && !orEq ? [] : [insQ[j]!.and(shardLt(j, i, orEq))])),
        insW,
      ),
    );
  const timedMerge = !!(time && mg);
  const insBefore = timedMerge ? insByShard(false) : insA.before;
  const insLast = timedMerge ? insByShard(true) : null;
  const inserted = lastIns;
  const clock = time ? globalTime(m, time, { S, N, inserted, insertBits: insQ, clear: bcastNowQ, width }) : null;
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

  // Each shard's request: the lane issued to it (with merging, its group's leader and members), a
  // broadcast (to every shard), or the aging tick; each grant rule grants one lane at most to a
  // shard, so the lanes issued to a shard are a one-hot select (but for a merge group's members).
  const scanAt = clock ? lagAfter(inserted) : null;
  coreIn.forEach((ci, s) => {
    // Lanes issued to this shard (with merging, the group's leader and members): registers of
    // the grant to it (a broadcast's grant is to every shard).
    const to = toQ.map((t) => t[s]!);
    // The lane whose request the shard takes: the group's leader (no member is a broadcast).
    const sel = iss[0]!.member ? to.map((t, i) => t.and(iss[i]!.member!.not())) : to;
    const selAny = orAll(m, sel);
    // Global time: a shard issued nothing in a cycle with a scan step gets the step alone.
    m.assignWire(ci.valid, clock ? selAny.or(clock.scanNow) : selAny.or(tickQ));
    // (Never selected in a family that does not age: tickQ is 0 there.)
    const tickOp = m.const(o.tickCode ?? time?.scanCode ?? 0, opW);
    let op = andOr(
      m,
      sel,
      iss.map((d) => d.op),
      opW,
    );
    // A group with a query and an insert runs as one test-and-insert.
    if (mg && kindQ) {
      const has = (k: 'query' | 'insert'): Sig =>
        orAll(
          m,
          to.map((t, i) => t.and(kindQ[i]![k])),
        );
      op = m.mux(has('query').and(has('insert')), m.const(mg.testAndInsert, opW), op);
    }
    m.assignWire(ci.op, clock ? m.mux(selAny, op, tickOp) : m.mux(tickQ, tickOp, op));
    m.assignWire(
      ci.key,
      andOr(
        m,
        sel,
        iss.map((d) => d.key),
        o.keyBits,
      ),
    );
    // A broadcast answers once (from shard 0), the tick and a lone scan step not at all.
    const dropBcast = s === 0 ? m.const(0, 1) : bcastNowQ;
    const drop = clock ? selAny.not().or(dropBcast) : tickQ.or(dropBcast);
    if (clock) {
      const fields = [
        clock.tplus,
        ...(clock.bcnt ? [clock.bcnt] : []),
        andOr(m, sel, beforeLane, clock.countBits),
        clock.scanNow,
        scanAt!,
        ...(lastLane ? [andOr(m, sel, lastLane, clock.countBits)] : []),
      ];
      fields.forEach((f, j) => m.assignWire(ci.time[j]!, f));
    }
    if (mg) m.assignWire(ci.tag, m.cat(drop, ...[...to].reverse()));
    else
      m.assignWire(
        ci.tag,
        m.cat(
          drop,
          andOr(
            m,
            sel,
            lane.map((_, i) => m.const(i, laneBits)),
            laneBits,
          ),
        ),
      );
    o.request.forEach((f, j) =>
      m.assignWire(
        ci.extras[j]!,
        andOr(
          m,
          sel,
          iss.map((d) => d.extras[j]!),
          f.width,
        ),
      ),
    );
  });

  // ---- responses: from the shards into each lane's response queue ---------------------------
  const respW = o.response.map((f) => f.width);
  // Each shard's response as every lane sees it (a kept response, its data; without merging its
  // lane), formed once.
  const responses = coreOut.map((co) => {
    const t = co.out_tag!;
    return {
      t,
      kept: co.out_valid!.and(t.bit(tagW - 1).not()),
      data: o.response.length ? m.cat(...o.response.map((f) => co[f.port]!)) : m.const(0, 1),
      lane: mg ? null : t.slice(tagW - 2, tagW - 1 - laneBits),
    };
  });
  // The registers formed from the heads' next values: with ticks each a select by the lane's
  // grant (a grant needs a valid head, `acceptNeedsHead`) between its values with the head kept
  // and taken, formed without the grant, so they follow a grant by a gate or two; without ticks
  // formed from the heads' next values.
  const advanced = lane.map((l, i) => l.sk.advance(grant[i]!));
  const alt = ticks ? advanced.map((adv) => adv.alt!) : null;
  const nextShard = alt ? null : advanced.map((adv) => (S > 1 ? adv.nextField('shard') : null));
  const byGrant = (i: number, f: (k: 0 | 1) => Sig): Sig => m.mux(grant[i]!, f(1), f(0));
  const bcastNext = (i: number, k: 0 | 1, extra?: Sig): Sig => {
    const t = alt![i]!.valid[k].and(alt![i]!.flag('bcast')[k]);
    return extra ? t.or(extra) : t;
  };
  anyBcastReg.next(
    orAll(
      m,
      lane.map((_, i) =>
        alt ? byGrant(i, (k) => bcastNext(i, k)) : advanced[i]!.headValidNext.and(advanced[i]!.next('bcast')),
      ),
    ),
  );
  // slow's next value: the near flag's folded into lane 0's terms (one OR of the lanes' terms).
  if (slowReg)
    slowReg.next(
      orAll(
        m,
        lane.map((_, i) => byGrant(i, (k) => bcastNext(i, k, i === 0 ? nearNext! : undefined))),
      ),
    );
  // Two heads want one shard next cycle: the four compares of their kept and taken shards, selected
  // by the two grants.
  for (const [pair, r] of sameReg) {
    const [j, i] = pair.split('_').map(Number) as [number, number];
    if (!alt) {
      r.next(nextShard![j]!.eq(nextShard![i]!));
      continue;
    }
    const sj = alt[j]!.field('shard');
    const si = alt[i]!.field('shard');
    r.next(byGrant(j, (a) => byGrant(i, (b) => sj[a].eq(si[b]))));
  }
  lane.forEach((l, i) => {
    l.sk.release(grant[i]!);
    l.sk.setReady(m.const(0, 1));
    l.slot.next(m.mux(gQ[i]!, l.slot.add(1), l.slot));
    // A lane is granted once per cycle at most and every request takes the same cycles to its
    // response, so one shard at most answers a lane in a cycle, in the lane's request order.
    const hits = responses.map((r) => r.kept.and(r.lane ? r.lane.eq(i) : r.t.bit(tagW - 2 - (N - 1 - i))));
    // Registered before the queue's entries (a cycle of latency): the select among the shards'
    // answers is one path, the entry's write enable and data another.
    const answer = {
      valid: m.pipe(orAll(m, hits), 1, `lane${i}_ans_valid`),
      data: m.pipe(
        andOr(
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
    // With merging, a pure insert's answer is zero (its group's access may be a test-and-insert).
    const zero = kindQ ? kindQ[i]!.insert : null;
    // Global time: the cycle's scan step follows this op (the last granted in the cycle's order:
    // lane order, or with merging the op whose place is the cycle's last).
    const last = (x: Sig): Sig => x.and(kind ? offQ[i]!.add(1).eq(grantedQ) : orAll(m, gQ.slice(i + 1)).not());
    const scanAfter = clock ? last(clock.scanNow.and(gQ[i]!)) : null;
    // The seq and the tag go into the slot as the op is issued (see `offQ`).
    const rest = m.cat(iss[i]!.tag, ...(zero ? [zero] : []), ...(scanAfter ? [scanAfter] : []));
    // Registered before the memory's write port (written two cycles after the grant, long
    // before the answer comes): the seq's adder (and the scan flag's table) end at a register.
    const metaWord = m.cat(seqBase.add(offQ[i]!.zext(SEQ_BITS)), rest);
    const meta = {
      we: m.pipe(gQ[i]!, 1, `lane${i}_meta_we`),
      slot: m.pipe(l.slot, 1, `lane${i}_meta_slot`, { reset: null }),
      data: m.pipe(metaWord, 1, `lane${i}_meta_data`, { reset: null }),
    };
    if (meta.data.width !== metaBits(o.tagBits, !!kind, !!clock)) throw new Error(`lanes '${o.name}': meta width`);
    const rq = responseQueue(m, `lane${i}_rq`, o.queueDepth, meta, answer, l.outReady);
    const fullNext = l.occ.step(gQ[i]!, rq.pop);
    l.reqReg?.next(
      alt ? byGrant(i, (k) => alt[i]!.valid[k].and(fullNext.not())) : advanced[i]!.headValidNext.and(fullNext.not()),
    );
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
    o.response.forEach((f, j) => {
      const v = rq.head.slice(hi, hi - respW[j]! + 1);
      m.output(`out${i}_${f.port.replace(/^out_/, '')}`, zeroed ? m.mux(zeroed, 0, v) : v, `lane ${i}: ${f.name}`);
      hi -= respW[j]!;
    });
  });
  return m.build();
}

/**
 * A lane's requests from issue to pop (issued, or waiting in its response queue): a count and its
 * `full` flag, both registers. The count follows the issue stage (`issued`: a grant a cycle
 * late), not the grant, so no grant feeds it: two requests are not counted yet, last cycle's
 * grant (in the issue stage) and this cycle's. `full` (count ≥ D − 1) assumes both, so a lane is
 * granted only with at most D − 2 counted and never has more than D requests from grant to pop
 * (laneQueueDepth leaves room for them). The next values are selected among compares of the
 * count register.
 */
function laneCount(m: ModuleBuilder, name: string, D: number): { full: Sig; step: (issued: Sig, pop: Sig) => Sig } {
  const count = m.reg(name, Math.log2(D) + 1);
  const full = m.reg(`${name}_full`, 1);
  return {
    full,
    step: (issued, pop) => {
      count.next(m.mux(issued, m.mux(pop, count, count.add(1)), m.mux(pop, count.sub(1), count)));
      // Full next cycle: the count then, with the grant of this cycle assumed, reaches D (full:
      // the count is D − 1 or D; it never exceeds D). Equality compares, no carry chain.
      const fullNext = m.mux(issued, m.mux(pop, full, full.or(count.eq(D - 2))), m.mux(pop, count.eq(D), full));
      full.next(fullNext);
      return fullNext;
    },
  };
}

/**
 * A lane's response queue: D entries, one per slot, filled in request order. A
 * request's seq and tag are written into its slot one cycle after it is granted (`meta`, at the
 * lane's slot counter; two with global time, registered), its answer into the same slot when it comes back (`answer`, at the queue's
 * own write pointer: answers come in request order), and the head slot leaves when its answer is
 * in and `outReady`. The pointers have one bit more than a slot, so a queue of D answers
 * is told from an empty one; whether the head's answer is in (out_valid) is a register, set from
 * the pointers' next values, so only a pop follows out_ready.
 */
function responseQueue(
  m: ModuleBuilder,
  name: string,
  D: number,
  meta: { we: Sig; slot: Sig; data: Sig },
  answer: { valid: Sig; data: Sig },
  outReady: Sig,
): { outValid: Sig; pop: Sig; head: Sig } {
  const SLOT_BITS = Math.log2(D);
  const rp = m.reg(`${name}_rp`, SLOT_BITS + 1);
  const wp = m.reg(`${name}_wp`, SLOT_BITS + 1);
  const outValid = m.reg(`${name}_out_valid`, 1);
  // The seq and tag in a memory (one write, one read a cycle: a block RAM): it is read every cycle
  // at the next head, so the head's word is there when it becomes the head. A slot's meta is
  // written one or two cycles after its grant and its answer comes the core's latency + 2 cycles
  // after it (a latency of at least 1, so later than the write), so when the head's answer
  // is in, its meta was written before the read (a read of a slot as it is written gives an
  // undefined word, but only while that slot's answer is not in: out_valid is low then, and the
  // word is shown as 0 while out_valid is low).
  const metaMem = m.memory(`${name}_meta`, { width: meta.data.width, depth: D, readDuringWrite: 'undefined' });
  metaMem.write(meta.slot, meta.data, meta.we);
  // The answer's slot as two one-hot registers beside the write pointer, its column (`_wcol`, the
  // low bits: rotated by every answer) and its row (`_wrow`: rotated as the column wraps), so an
  // entry's write enable is one gate of the answer's valid and two register bits.
  const C = 2 ** Math.ceil(SLOT_BITS / 2);
  const R = D / C;
  const rotate = (r: Reg, n: number): Sig => m.cat(r.slice(n - 2, 0), r.bit(n - 1));
  const wcol = m.reg(`${name}_wcol`, C, { reset: 1 });
  const wrow = m.reg(`${name}_wrow`, R, { reset: 1 });
  wcol.next(m.mux(answer.valid, rotate(wcol, C), wcol));
  wrow.next(m.mux(answer.valid.and(wcol.bit(C - 1)), rotate(wrow, R), wrow));
  const entries: Sig[] = [];
  for (let j = 0; j < D; j++) {
    const en = answer.valid.and(wrow.bit(Math.floor(j / C))).and(wcol.bit(j % C));
    const e = m.reg(`${name}_entry${j}`, answer.data.width, { reset: null, en });
    e.next(answer.data);
    entries.push(e);
  }
  const wpNext = m.mux(answer.valid, wp.add(1), wp);
  wp.next(wpNext);
  const pop = outValid.and(outReady);
  const rpNext = m.mux(pop, rp.add(1), rp);
  rp.next(rpNext);
  outValid.next(wpNext.ne(rpNext));
  const metaHead = metaMem.read(rpNext.slice(SLOT_BITS - 1, 0));
  const at = rp.slice(SLOT_BITS - 1, 0);
  return { outValid, pop, head: m.cat(m.mux(outValid, metaHead, 0), muxTree(m, entries, at, ONCE)) };
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
        ? table(m, [...o.insertBits, ...Array.from({ length: sb }, (_, b) => phase.bit(b))], (v) =>
            (v >> N) + popcount(v & ((1 << N) - 1)) >= o.S ? 1 : 0,
          )
        : sum.ge(o.S);
    phase.next(m.mux(o.clear, 0, m.mux(scanNow, sum.sub(o.S), sum).trunc(sb)));
  }
  return { tplus: tplus as Sig, bcnt: bcnt as Sig | null, scanNow, countBits, lag: lag as Sig };
}
