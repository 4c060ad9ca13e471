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
 * Each lane has the family's two-entry skid input; the shard index (H3 of the key, salt
 * SHARD_SALT) is computed as a request enters and kept with it. Every cycle the dispatcher
 * looks at the N head requests and
 *   - (fast mode) grants every head whose shard is ready, whose lane has room in its response
 *     queue, and which no earlier head of the cycle wants the same shard with: "earlier" in a
 *     priority order that rotates by one lane each cycle, so a hot shard is shared fairly;
 *   - (fewer than N inserts left in the generation) grants queries as above and one insert at
 *     most, the first in priority order; when the generation is full and an insert waits, every
 *     shard gets the tick op instead (the global aging step, its responses dropped), and the
 *     next cycle that insert goes alone;
 *   - (a broadcast op, tick or clear, at a head) grants one head only, the first in priority
 *     order; a broadcast goes to every shard at once.
 * A granted request goes into its shard's two-entry skid buffer (registered ready, so no path runs
 * from the grant into the core) and from there into the shard's pipeline (the family's shard
 * config: no response queue of its own, or out_ready tied high), with a tag carrying {drop, lane,
 * reorder slot} (the seq and the tag wait in the slot); the responses come back after the
 * pipeline's fixed latency and are pushed into their lane's response queue (LANE_QUEUE entries; a
 * lane is granted only while its queue has room for every request in flight).
 *
 * Linear order: the ops of a cycle are executed by distinct shards, and a cycle never spans an
 * aging step (fast mode grants at most N inserts with at least N left), so they commute; the
 * order is cycle by cycle, lane 0 first within a cycle, and `seq` (SEQ_BITS bits, wrapping) numbers
 * the ops in that order. Every answer equals the sharded model's (src/lanes/model.ts) on it.
 *
 * Merging identical keys (`merge`, fast mode only): a query or insert head whose key equals that
 * of an earlier head granted as its shard's access joins it — the group runs as one shard op (a
 * test-and-insert when it holds a query and an insert, else the leader's op), the core's tag
 * carries a mask of the group's lanes and every lane's slot, and each member's response goes into
 * its own lane's reorder queue (a pure insert's answer zeroed, as the family's insert answers).
 * The linear order of a cycle is then its queries, its test-and-inserts, then the rest, each in
 * lane order: a group answers as of before its insert, and ops of different shards commute.
 *
 * Latency with no conflict and out<i>_ready high: the core's latency + 3 (a cycle in the lane's
 * skid input, one in the shard's, one in the lane's reorder queue).
 */
import { ModuleBuilder, type Sig, type Wire } from '../dsl/module.js';
import type { Design } from '../ir/types.js';
import { skidInput } from '../stages/input.js';
import { advanceTime, muxTree, bitsFor } from '../stages/primitives.js';
import { occupancy } from '../stages/responseQueue.js';
import type { PortField } from '../families/types.js';

/** Bits of the sequence number on each response (wraps; see the verifier's unwrapping). */
export const SEQ_BITS = 16;
/** Entries of each lane's reorder queue (covers the core's latency + 3: no stall when ready). */
export const LANE_QUEUE = 16;
/** Bits of a lane's reorder-queue slot number. */
const SLOT_BITS = Math.log2(LANE_QUEUE);
/** Salt of the shard hash's H3 matrix (the cores' hashes use small salts). */
export const SHARD_SALT = 0x5a4d0001;

export interface LaneBuild {
  name: string;
  /** The shard's pipeline (the family's design for the shard config, key mix included). */
  core: Design;
  lanes: number;
  shards: number;
  keyBits: number;
  /** The user's tag width (kept in the lane's reorder slot; the core's tag carries drop, lane and slot). */
  tagBits: number;
  seed: number;
  /** Ticks: inserts between aging steps (the generation), and the tick op (neither nor `time`: nothing ages). */
  period?: number;
  tickCode?: number;
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

/** The lane wrapper's mux trees slice each select bit once (fewer cells for the simulator). */
const ONCE = { sliceOnce: true };

export function laneBitsOf(lanes: number): number {
  return Math.max(1, Math.log2(lanes));
}

/**
 * The core's tag width for a lane build: drop, lane and reorder slot (seq and tag wait in the
 * slot); with merging, drop, a mask of the lanes the response goes to and every lane's slot.
 */
export function coreTagBits(lanes: number, merge = false): number {
  return merge ? 1 + lanes + lanes * SLOT_BITS : 1 + laneBitsOf(lanes) + SLOT_BITS;
}

const orAll = (m: ModuleBuilder, xs: Sig[]): Sig => (xs.length ? xs.reduce((a, b) => a.or(b)) : m.const(0, 1));

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
  // Global time numbers a cycle's ops in lane order (its inserts before each lane, the scan step
  // after the last): the merging class order is not built for it.
  if (time && mg) throw new Error(`lanes '${o.name}': merging identical keys with global time is not built`);
  if (time && o.period !== undefined)
    throw new Error(`lanes '${o.name}': a family ages by ticks (period, tickCode) or by global time, not both`);
  if ((o.period === undefined) !== (o.tickCode === undefined))
    throw new Error(`lanes '${o.name}': ticks need both the period and the tick op`);
  // A family that does not age (a set or multiset filter): no generation count, no tick.
  const ticks = o.period !== undefined;
  if (width('in_tag') !== tagW) throw new Error(`core '${core.name}': in_tag is ${width('in_tag')} bits, not ${tagW}`);

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
    if (S > 1) data.shard = m.h3(key, shardBits, { seed: o.seed, salt: SHARD_SALT });
    const sk = skidInput(m, {
      valid,
      op,
      flags: { ins: o.insertCodes, bcast: o.broadcastCodes },
      data,
      name: `lane${i}_in`,
    });
    const occ = occupancy(m, { capacity: LANE_QUEUE, name: `lane${i}_occupancy`, wordWide: true });
    const req = sk.headValid.and(occ.value.bit(LANE_QUEUE - 1).not());
    // The reorder-queue slot of the lane's next granted request.
    const slot = m.reg(`lane${i}_slot`, SLOT_BITS);
    return { sk, occ, req, outReady, slot, shard: S > 1 ? sk.data.shard! : null };
  });

  // ---- the shards' cores, on wires the dispatcher drives -------------------------------------
  const timePorts = time
    ? ['in_tplus', ...(time.block > 1 ? ['in_bcnt'] : []), 'in_before', 'in_scan', 'in_scan_at']
    : [];
  const coreIn = Array.from({ length: S }, (_, s) => {
    const w = (name: string, bits: number): Wire => m.wire(`shard${s}_${name}`, bits);
    return {
      valid: w('req_valid', 1),
      op: w('req_op', opW),
      key: w('req_key', o.keyBits),
      tag: w('req_tag', tagW),
      extras: o.request.map((f) => w(`req_${f.name}`, f.width)),
      // Global time: the core's time ports, held in the shard's buffer with the request.
      time: timePorts.map((p) => w(`req_${p.replace(/^in_/, '')}`, width(p))),
    };
  });
  // Each shard takes its requests through a two-entry skid buffer (`shard<s>_q`): the dispatcher
  // sees its registered ready and writes registers, so no path runs from a grant into the core.
  const coreOut = coreIn.map((ci, s) => {
    const data: Record<string, Sig> = { op: ci.op, key: ci.key, tag: ci.tag };
    o.request.forEach((f, j) => (data[`x${j}`] = ci.extras[j]!));
    timePorts.forEach((_, j) => (data[`t${j}`] = ci.time[j]!));
    // (skidInput decodes at least one flag; this buffer only passes the op on.)
    const q = skidInput(m, {
      valid: ci.valid,
      op: ci.op,
      flags: (ticks ? { tick: [o.tickCode!] } : { bcast: o.broadcastCodes }) as Record<string, readonly number[]>,
      data,
      name: `shard${s}_q`,
    });
    const co = m.instance(`shard${s}`, core, {
      rst: m.rst,
      in_valid: q.headValid,
      in_op: q.data.op!,
      in_key: q.data.key!,
      in_tag: q.data.tag!,
      ...(core.inputs.some((q) => q.name === 'out_ready') ? { out_ready: m.const(1, 1) } : {}),
      ...Object.fromEntries(o.request.map((f, j) => [f.port, q.data[`x${j}`]!])),
      ...Object.fromEntries(timePorts.map((p, j) => [p, q.data[`t${j}`]!])),
    });
    const take = q.headValid.and(co.in_ready!);
    q.advance(take);
    q.release(take);
    q.setReady(m.const(0, 1));
    // A request written now enters the core next cycle, or follows a clear and waits out its
    // sweep with every shard's: the second entry is free (q.ready) and the head, if any, leaves
    // now and is not a broadcast (a clear; its sweep lowers in_ready the cycle after).
    const next = time ? q.ready.and(q.headValid.not().or(co.in_ready!.and(q.head.bcast!.not()))) : null;
    const out: Record<string, Sig> = { ...co, in_ready: q.ready, ...(next ? { next } : {}) };
    return out;
  });
  const ready = coreOut.map((co) => co.in_ready!);
  // Global time: inserts only in cycles where a request written to any shard enters its core the
  // next cycle, or waits behind a clear with every shard, so a granted insert and the cycle's scan
  // steps do (the scanner's bound in src/families/tbf/lanes.ts), and every shard has room for a
  // scan step. Judged a cycle ahead (a register): last cycle every shard's second entry was free
  // and its head, if any, left and was not a clear. So now a shard holds at most what was written
  // last cycle; that leaves now, unless it is a clear (or follows one: the core may have taken a
  // clear two cycles ago with its head empty since) — then it and everything granted after it wait
  // out the sweep that every shard runs from the same cycle, and no insert is granted meanwhile
  // (in_ready low or a clear at the head makes `next` 0).
  const quiet = time
    ? m.pipe(
        coreOut.map((co) => co.next!).reduce((a, b) => a.and(b)),
        1,
        'time_quiet',
      )
    : null;
  // ---- the dispatcher ------------------------------------------------------------------------
  const count = ticks ? m.reg('gen_count', bitsFor(o.period!)) : null;
  const seqBase = m.reg('seq_base', SEQ_BITS);
  const prio = N > 1 ? m.reg('prio', N, { reset: 1 }) : null;
  if (prio) prio.next(m.cat(prio.slice(N - 2, 0), prio.bit(N - 1)));
  /** Lane j comes before lane i in this cycle's priority order. */
  const prec = (j: number, i: number): Sig => {
    const rs: Sig[] = [];
    for (let r = 0; r < N; r++) if ((j - r + N) % N < (i - r + N) % N) rs.push(prio!.bit(r));
    return orAll(m, rs);
  };
  const same = (j: number, i: number): Sig => (S > 1 ? lane[j]!.shard!.eq(lane[i]!.shard!) : m.const(1, 1));
  const shardReady = lane.map((l) => (S > 1 ? muxTree(m, ready, l.shard, ONCE) : ready[0]!));
  const allReady = ready.reduce((a, b) => a.and(b));
  const ins = lane.map((l) => l.sk.head.ins!);
  const bcast = lane.map((l) => l.sk.head.bcast!);
  const anyBcast = orAll(
    m,
    lane.map((l, i) => l.sk.headValid.and(bcast[i]!)),
  );
  const period = o.period ?? 0;
  const nearFull = !count ? m.const(0, 1) : period > N ? count.gt(period - N) : m.const(1, 1);
  const slow = anyBcast.or(nearFull);
  const near = nearFull.and(anyBcast.not());
  const full = count ? count.eq(period) : m.const(0, 1);
  // Grant g of lane i, with global time only while an insert may go (see `quiet`).
  const insOk = (i: number, g: Sig): Sig => (quiet ? g.and(ins[i]!.not().or(quiet)) : g);
  const others = (i: number, f: (j: number) => Sig): Sig =>
    orAll(
      m,
      lane.flatMap((_, j) => (j === i ? [] : [f(j)])),
    );
  // No earlier head of the cycle wants the same shard.
  const shardFree = lane.map((_, i) => others(i, (j) => lane[j]!.req.and(same(j, i)).and(prec(j, i))).not());
  const fastGrant = lane.map((l, i) => insOk(i, slow.not().and(l.req).and(shardReady[i]!).and(shardFree[i]!)));
  const top = lane.map((l, i) => l.req.and(others(i, (j) => lane[j]!.req.and(prec(j, i))).not()));
  // Near the end of a generation: queries as in fast mode, and one insert at most (the first in
  // priority order), so a cycle never takes the generation past g.
  const firstIns = lane.map((l, i) =>
    l.req.and(ins[i]!).and(others(i, (j) => lane[j]!.req.and(ins[j]!).and(prec(j, i))).not()),
  );
  // The aging tick is due: the generation is full and an insert waits (with a broadcast at a
  // head, the insert that is first in priority order).
  const topIns = top.map((t, i) => t.and(ins[i]!));
  const tickFor = lane.map((_, i) => m.mux(anyBcast, topIns[i]!, firstIns[i]!));
  const tickWanted = full.and(orAll(m, tickFor));
  // After an aging tick the insert that made it goes first and alone (`tick_lane`, one-hot), so
  // nothing is ordered between the tick and that insert (the model ticks right before it).
  // None in a family that does not age. (With global time it stays 0, as no tick is ever wanted;
  // it is kept there so that those designs stay the netlists measured in the README.)
  const pend = ticks || time ? m.reg('tick_lane', N) : null;
  const pendAny = pend ? pend.any() : m.const(0, 1);
  const pendBit = (i: number): Sig => (pend ? pend.bit(i) : m.const(0, 1));
  const tickNow = tickWanted.and(allReady).and(pendAny.not());
  const nearGrant = lane.map((l, i) =>
    near.and(tickWanted.not()).and(l.req).and(shardReady[i]!).and(shardFree[i]!).and(ins[i]!.not().or(firstIns[i]!)),
  );
  // A broadcast at a head: one op per cycle, the first in priority order.
  const slowGrant = lane.map((_, i) =>
    insOk(
      i,
      anyBcast
        .and(top[i]!)
        .and(ins[i]!.and(full).not())
        .and(m.mux(bcast[i]!, allReady, shardReady[i]!)),
    ),
  );
  const pendGrant = lane.map((l, i) => pendBit(i).and(l.req).and(shardReady[i]!));
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
    const g = fastGrant[i]!.or(nearGrant[i]!).or(slowGrant[i]!).and(pendAny.not()).or(pendGrant[i]!);
    return member ? g.or(member[i]!) : g;
  });
  pend?.next(m.mux(tickNow, m.cat(...[...tickFor].reverse()), m.mux(orAll(m, pendGrant), 0, pend)));
  const bcastGrant = lane.map((_, i) => slowGrant[i]!.and(bcast[i]!).and(pendAny.not()));
  const bcastNow = orAll(m, bcastGrant);

  // Sequence numbers: lane order within the cycle; with merging, the cycle's queries first, then
  // its test-and-inserts, then the rest, each in lane order (a group answers as of before its
  // insert). A granted op's place within its cycle (`offset`, 0..N-1) is registered with the grant
  // count, and the 16-bit sums are formed a cycle later from registers (`seq_base` then holds the
  // ops of every earlier cycle): the meta write of the reorder queue waits that cycle, so no adder
  // runs after the grant.
  const offW = bitsFor(N);
  const offset: Sig[] = [];
  let prefix = m.const(0, offW);
  if (kind) {
    const cls = kind.map(({ query: a, testAndInsert: b }) => ({ a, b, c: a.or(b).not() }));
    for (let i = 0; i < N; i++) {
      const x = cls[i]!;
      const before = (j: number): Sig => {
        const y = cls[j]!;
        const rank = y.a.and(x.a.not()).or(y.b.and(x.c));
        const sameClass = y.a.and(x.a).or(y.b.and(x.b)).or(y.c.and(x.c));
        return j < i ? rank.or(sameClass) : rank;
      };
      let off = m.const(0, offW);
      for (let j = 0; j < N; j++) if (j !== i) off = off.add(grant[j]!.and(before(j)).zext(offW));
      offset.push(off);
      prefix = prefix.add(grant[i]!.zext(offW));
    }
  } else
    for (let i = 0; i < N; i++) {
      offset.push(prefix);
      prefix = prefix.add(grant[i]!.zext(offW));
    }
  const grantedQ = m.pipe(prefix, 1, 'granted');
  seqBase.next(seqBase.add(grantedQ.zext(SEQ_BITS)));
  const insW = count ? bitsFor(period) : bitsFor(N);
  // Inserts granted to lanes before lane i (in the cycle's order, lane order without merging).
  const insBefore: Sig[] = [];
  let inserted = m.const(0, insW);
  for (let i = 0; i < N; i++) {
    insBefore.push(inserted);
    inserted = inserted.add(grant[i]!.and(ins[i]!).zext(insW));
  }
  if (count) count.next(m.mux(tickNow.or(bcastNow), 0, count.add(inserted)));
  const clock = time ? globalTime(m, time, { S, inserted, clear: bcastNow, width }) : null;
  // Global time: lag + c for every count c of a cycle's inserts, from registers only, so the
  // grants (through the insert counts) select a sum rather than feed an adder.
  const lagPlus = clock
    ? Array.from({ length: 1 << insW }, (_, c) =>
        c === 0 ? clock.lag : clock.lag.add(m.const(Math.min(c, N), clock.countBits)),
      )
    : [];
  const lagAfter = (count: Sig): Sig => muxTree(m, lagPlus, count, ONCE);
  const beforeLane = clock ? insBefore.map(lagAfter) : [];

  // Each shard's request: a granted lane's (with merging, its group leader's), a broadcast, or
  // the aging tick. The fields a shard takes come from its candidate: the one lane that can be
  // granted to it this cycle, known without the grant (whether it is granted sets the valid, and
  // with merging the group's lane mask and op). After a tick, the pending lane; with a broadcast
  // first in priority order, that lane for every shard; else the first head in priority order
  // that wants the shard (every grant rule grants no other head to it; a merge group's leader).
  // And when a tick is wanted nothing else is granted (nothing is pending then either), so the
  // tick op and the drop bit need not wait for it.
  const topBcast = orAll(
    m,
    top.map((t, i) => t.and(bcast[i]!)),
  );
  const dropBcast = topBcast.and(pendAny.not());
  const scanAt = clock ? lagAfter(inserted) : null;
  coreIn.forEach((ci, s) => {
    const here = (i: number): Sig => (S > 1 ? lane[i]!.shard!.eq(s) : m.const(1, 1));
    // Lanes granted to this shard (with merging, the group's leader and members).
    const to = lane.map((_, i) => grant[i]!.and(bcast[i]!.not()).and(here(i)).or(bcastGrant[i]!));
    // The lane whose request the shard takes: the group's leader (no member is a broadcast).
    const sel = member ? to.map((t, i) => t.and(member[i]!.not())) : to;
    const selAny = orAll(m, sel);
    // Global time: a shard granted nothing in a cycle with a scan step gets the step alone.
    m.assignWire(ci.valid, clock ? selAny.or(clock.scanNow) : selAny.or(tickNow));
    const cand = lane.map((l, i) =>
      m.mux(pendAny, pendBit(i).and(here(i)), m.mux(topBcast, top[i]!, l.req.and(shardFree[i]!).and(here(i)))),
    );
    // (Never selected in a family that does not age: tickWanted is 0 there.)
    const tickOp = m.const(o.tickCode ?? time?.scanCode ?? 0, opW);
    let op = andOr(
      m,
      cand,
      lane.map((l) => l.sk.data.op!),
      opW,
    );
    // A group with a query and an insert runs as one test-and-insert.
    if (mg && kind) {
      const has = (k: 'query' | 'insert'): Sig =>
        orAll(
          m,
          to.map((t, i) => t.and(kind[i]![k])),
        );
      op = m.mux(has('query').and(has('insert')), m.const(mg.testAndInsert, opW), op);
    }
    m.assignWire(ci.op, clock ? m.mux(selAny, op, tickOp) : m.mux(tickWanted, tickOp, op));
    m.assignWire(
      ci.key,
      andOr(
        m,
        cand,
        lane.map((l) => l.sk.data.key!),
        o.keyBits,
      ),
    );
    const drop = clock
      ? selAny.not().or(s === 0 ? m.const(0, 1) : dropBcast)
      : s === 0
        ? tickWanted
        : tickWanted.or(dropBcast);
    if (clock) {
      const fields = [
        clock.tplus,
        ...(clock.bcnt ? [clock.bcnt] : []),
        andOr(m, cand, beforeLane, clock.countBits),
        clock.scanNow,
        scanAt!,
      ];
      fields.forEach((f, j) => m.assignWire(ci.time[j]!, f));
    }
    if (mg) m.assignWire(ci.tag, m.cat(drop, ...[...to].reverse(), ...lane.map((l) => l.slot).reverse()));
    else
      m.assignWire(
        ci.tag,
        m.cat(
          drop,
          andOr(
            m,
            cand,
            lane.map((_, i) => m.const(i, laneBits)),
            laneBits,
          ),
          andOr(
            m,
            cand,
            lane.map((l) => l.slot),
            SLOT_BITS,
          ),
        ),
      );
    o.request.forEach((f, j) =>
      m.assignWire(
        ci.extras[j]!,
        andOr(
          m,
          cand,
          lane.map((l) => l.sk.data[f.name]!),
          f.width,
        ),
      ),
    );
  });

  // ---- responses: from the shards into each lane's reorder queue ----------------------------
  const respW = o.response.map((f) => f.width);
  // Each shard's response as every lane sees it (a kept response, its data; without merging its
  // lane and slot), formed once.
  const responses = coreOut.map((co) => {
    const t = co.out_tag!;
    return {
      t,
      kept: co.out_valid!.and(t.bit(tagW - 1).not()),
      data: o.response.length ? m.cat(...o.response.map((f) => co[f.port]!)) : m.const(0, 1),
      lane: mg ? null : t.slice(tagW - 2, tagW - 1 - laneBits),
      slot: mg ? null : t.slice(SLOT_BITS - 1, 0),
    };
  });
  lane.forEach((l, i) => {
    l.sk.advance(grant[i]!);
    l.sk.release(grant[i]!);
    l.sk.setReady(m.const(0, 1));
    l.slot.next(m.mux(grant[i]!, l.slot.add(1), l.slot));
    const writes = responses.map((r) => ({
      valid: r.kept.and(r.lane ? r.lane.eq(i) : r.t.bit(tagW - 2 - (N - 1 - i))),
      slot: r.slot ?? r.t.slice((i + 1) * SLOT_BITS - 1, i * SLOT_BITS),
      data: r.data,
    }));
    // With merging, a pure insert's answer is zero (its group's access may be a test-and-insert).
    const zero = kind ? kind[i]!.insert : null;
    // Global time: the cycle's scan step follows this op (the last granted in lane order).
    const scanAfter = clock ? clock.scanNow.and(grant[i]!).and(orAll(m, grant.slice(i + 1)).not()) : null;
    // The seq and the tag go into the slot the cycle after the grant (see `offset`).
    const weQ = m.pipe(grant[i]!, 1, `lane${i}_meta_we`);
    const slotQ = m.pipe(l.slot, 1, `lane${i}_meta_slot`, { reset: null });
    const offQ = m.pipe(offset[i]!, 1, `lane${i}_meta_off`, { reset: null });
    const rest = m.cat(l.sk.data.tag!, ...(zero ? [zero] : []), ...(scanAfter ? [scanAfter] : []));
    const restQ = m.pipe(rest, 1, `lane${i}_meta_tag`, { reset: null });
    const meta = { we: weQ, slot: slotQ, data: m.cat(seqBase.add(offQ.zext(SEQ_BITS)), restQ) };
    const rq = reorderQueue(m, `lane${i}_rq`, meta, writes, l.outReady);
    l.occ.step(grant[i]!, rq.pop);
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
 * A lane's reorder queue: LANE_QUEUE entries, one per slot; a request's seq and tag are written
 * into its slot the cycle after it is granted (`meta`; a response takes longer), its response
 * into the same slot when it comes back (any number of shards may write different slots in one
 * cycle), and the head slot leaves when it is full and `outReady`. So a lane's responses leave in
 * its request order even when a shard answers late (one that took a request just before a
 * clear's sweep holds it until the sweep ends).
 */
function reorderQueue(
  m: ModuleBuilder,
  name: string,
  meta: { we: Sig; slot: Sig; data: Sig },
  writes: { valid: Sig; slot: Sig; data: Sig }[],
  outReady: Sig,
): { outValid: Sig; pop: Sig; head: Sig } {
  const D = LANE_QUEUE;
  const W = writes[0]!.data.width;
  const rp = m.reg(`${name}_rp`, SLOT_BITS);
  // Each writer's slot decoded once into a one-hot mask of the entries it writes (zero when it
  // writes none); an entry reads its bit of each mask.
  const oneHot = (valid: Sig, slot: Sig): Sig => m.mux(valid, m.const(1, D).shl(slot), m.const(0, D));
  const hitMasks = writes.map((w) => oneHot(w.valid, w.slot));
  const weMask = hitMasks.reduce((a, b) => a.or(b));
  const metaMask = oneHot(meta.we, meta.slot);
  const entries: Sig[] = [];
  const metas: Sig[] = [];
  // Which slots hold a response, one word.
  const full = m.reg(`${name}_full`, D);
  for (let j = 0; j < D; j++) {
    const mt = m.reg(`${name}_meta${j}`, meta.data.width, { reset: null, en: metaMask.bit(j) });
    mt.next(meta.data);
    metas.push(mt);
    // Writers hit different slots, so a chain of muxes selects the one that hits this entry.
    const last = writes.length - 1;
    let d = writes[last]!.data;
    for (let s = last - 1; s >= 0; s--) d = m.mux(hitMasks[s]!.bit(j), writes[s]!.data, d);
    const e = m.reg(`${name}_entry${j}`, W, { reset: null, en: weMask.bit(j) });
    e.next(d);
    entries.push(e);
  }
  const outValid = full.shr(rp).bit(0);
  const pop = outValid.and(outReady);
  // A slot written in the cycle it is popped stays full (a write wins, as it can only be a new one).
  full.next(weMask.or(full.and(oneHot(pop, rp).not())));
  rp.next(m.mux(pop, rp.add(1), rp));
  return { outValid, pop, head: m.cat(muxTree(m, metas, rp, ONCE), muxTree(m, entries, rp, ONCE)) };
}

/**
 * The dispatcher's global time (LaneTime in src/families/types.ts): every lane's inserts counted
 * as T+ (wrapping at `wrap`) and b (mod `block`), and the phase of the scan steps (inserts mod S):
 * `scanNow` when this cycle's inserts reach the next multiple of S (N <= S: one step at most).
 * The time registers hold the time at the start of the previous cycle and `lag` that cycle's
 * inserts, so no adder chain runs from the grant into T+: a shard adds `lag` to the inserts before
 * its request (in_before) and to the cycle's (in_scan_at). A clear restarts all of them.
 */
function globalTime(
  m: ModuleBuilder,
  time: { block: number; wrap: number },
  o: { S: number; inserted: Sig; clear: Sig; width: (port: string) => number },
) {
  const tplusW = o.width('in_tplus');
  const countBits = o.width('in_before');
  const n = o.inserted;
  const lag = m.reg('time_lag', countBits);
  lag.next(m.mux(o.clear, 0, n.zext(countBits)));
  const tplus = m.reg('time_tplus', tplusW);
  const bcnt = time.block > 1 ? m.reg('time_bcnt', o.width('in_bcnt')) : null;
  const after = advanceTime(m, { t: tplus, b: bcnt, n: lag, wrap: time.wrap });
  tplus.next(m.mux(o.clear, 0, after.t));
  if (bcnt) bcnt.next(m.mux(o.clear, 0, after.b!));
  const sb = Math.log2(o.S);
  let scanNow: Sig;
  if (sb === 0) scanNow = n.any();
  else {
    const phase = m.reg('time_phase', sb);
    const sum = phase.zext(sb + 1).add(n.zext(sb + 1));
    scanNow = sum.ge(o.S);
    phase.next(m.mux(o.clear, 0, m.mux(scanNow, sum.sub(o.S), sum).trunc(sb)));
  }
  return { tplus: tplus as Sig, bcnt: bcnt as Sig | null, scanNow, countBits, lag: lag as Sig };
}
