/**
 * RTL generator for the bitwise Bloom filter (libBf manual, "Bitwise"; the model is ./model.ts):
 * l levels of partitioned counting Bloom filters, one op per cycle (II = 1), fixed latency,
 * in-order responses.
 *
 * Ports (all synchronous to clk):
 *   in_valid, in_ready      request handshake; in_ready (a register) is low only while a
 *                           reset/clear sweep runs or while the response queue (if any) is full
 *   in_op[1:0]              0 query (count), 1 insert, 2 test-and-insert, 3 clear
 *   in_key, in_tag          the key, and a tag returned with the response
 *   out_valid, out_ready    response handshake (no out_ready in a `direct` shard); in request order
 *   out_tag                 the request's tag
 *   out_hit                 count > 0 (query, test-and-insert: as of before the op's own insert)
 *   out_count               C = Σ_i c_i·2^{Σ_{j<i} w_j}, c_i the minimum of the key's counters at
 *                           level i (Σ w_i bits: the largest count fits); 0 for insert and clear
 *   out_sat                 every level of the key at its maximum: the count is 2^{Σw} − 1 and an
 *                           insert is dropped (query, insert, test-and-insert: before the op)
 *
 * Memory: bank j of level i is one block RAM `l<i>_b<j>_ram` of m_i/(k_i·lanes_i) words, each
 * packing lanes_i counters of w_i bits (lane 0 in the low bits).
 *
 * Pipeline (a request accepted in cycle A; every stage boundary a register):
 *   A    input registers (op decoded; insert and clear qualified by the accept); in_ready a register
 *   A+1  H3 per bank, in 16-bit key chunks, each piece registered
 *   A+2  the pieces XORed: the counter index; word address and lane registered
 *   A+3  (R) block RAM read of every bank of every level, in parallel
 *   A+4  the word registered (corrected by the write of the op three ahead, which collided)
 *   A+5  corrected by the op two ahead; the key's counter taken out of the word and registered,
 *        with "at the maximum" and "at the maximum − 1" (src/stages/laneRmw.ts)
 *   A+6  the update: each counter as every earlier op left it (the op one ahead's value forwarded
 *        from a register when it wrote this very counter); full_i = every counter of level i at
 *        its maximum; carry into level i = full_0 … full_{i−1}; the add increments level i's
 *        counters (saturating) when the carry reaches it and the level is not full, and zeroes
 *        level i's counters when it is full and the carry goes on — unless every level is full
 *        (saturated: nothing changes). Every bank's updated word is registered on insert.
 *   A+7  the words written to the block RAMs; the counters as read (before the update) registered
 *   …    the minimum of each level's counters, a tree of 2-input minima, one register per level
 *        of the tree (⌈log2 max k_i⌉ stages); hit = some level has every counter non-zero
 *   A+7+d  the response enters the response queue, out_valid a cycle later: latency 8 + ⌈log2 max k_i⌉
 *        (bitwiseLatency); a lane shard (`direct`, ./lanes.ts) has no queue: these are its outputs.
 *
 * Zero stalls and exactness: every bank reads and writes one word per op, so one op per cycle
 * needs no arbitration; laneRmw forwards the three writes in flight at word level and the last
 * one at counter level, so back-to-back ops on one key, or on keys whose counters share a word,
 * see the counters as the sequential model leaves them (tested with read-during-write poisoning,
 * and a build with `forwarding: false` is caught). The decision loop of one op to the next is:
 * `prev_max` (register) → full flags → carries → the new counter and its "at the maximum" flag →
 * registers.
 *
 * Reset, power-up and the clear op sweep every bank with in_ready low (clearSweep, lookahead
 * form) for CLEAR_DELAY + max depth cycles. A clear is accepted in cycle A; its flag (A+1), delayed
 * SWEEP_START cycles, starts the sweep, whose first zero is written at the end of
 * A+2+SWEEP_START+CLEAR_DELAY; the op accepted just before it writes at the end of
 * A−1+WRITE_STAGE, earlier as long as WRITE_STAGE ≤ CLEAR_DELAY+2+SWEEP_START (checked below).
 *
 * Composition (src/stages/): registeredInput, clearSweep, occupancy, pipeStage, chunkedH3,
 * laneRmw (a bank: packed cells, read-modify-write with forwarding), responseQueue. Bitwise-only
 * and kept here: the carry decision across levels and the minimum trees.
 */
import { ModuleBuilder, type Sig } from '../../dsl/module.js';
import type { Design } from '../../ir/types.js';
import { CLEAR_DELAY, clearSweep } from '../../stages/clear.js';
import { chunkedH3 } from '../../stages/hash.js';
import { decodeOp, registeredInput } from '../../stages/input.js';
import { laneRmw, type ForwardPath, type LaneRmw } from '../../stages/laneRmw.js';
import { omit, pipeStage } from '../../stages/pipeline.js';
import { occupancy, responseQueue } from '../../stages/responseQueue.js';
import { hashSalt } from './model.js';
import { BITWISE_OP, bitwiseMeta, minStages, responseQueueDepth } from './params.js';
import type { BitwiseDerived, LevelLayout } from './types.js';

/** Cycles from the accepting cycle A to the block RAM writes of its update (at the end of A+7). */
const WRITE_STAGE = 7;
/** Cycles from the clear flag (A+1) to the sweep's start: the last writes of older ops land first. */
const SWEEP_START = 1;
if (WRITE_STAGE > CLEAR_DELAY + 2 + SWEEP_START)
  throw new Error('bitwise: the clear sweep would overtake the last writes');

/** Key bits per registered piece of a hash (one LUT4 level per two chunk bits … see hash.ts). */
const HASH_CHUNK = 16;

/** Name of the block RAM of bank `bank` of level `level` (as the DSL scopes produce it). */
export function bitwiseMemoryName(level: number, bank: number): string {
  return `l${level}_b${bank}_ram`;
}

export interface BitwiseBuildOptions {
  /** Forward in-flight writes (default true); off only so tests can show the hazards are caught. */
  forwarding?: boolean;
  /** Tests only: drop single corrections of every bank (see src/stages/laneRmw.ts). */
  drop?: readonly ForwardPath[];
}

export function buildBitwise(c: BitwiseDerived, opts: BitwiseBuildOptions = {}): Design {
  const m = new ModuleBuilder(c.name);
  Object.assign(m.meta, bitwiseMeta(c));
  const io = {
    valid: m.input('in_valid', 1, 'request valid'),
    op: m.input('in_op', 2, 'operation: 0 query (count), 1 insert, 2 test-and-insert, 3 clear'),
    key: m.input('in_key', c.keyBits, 'key'),
    tag: m.input('in_tag', c.tagBits, 'tag, returned with the response'),
    outReady: c.direct ? null : m.input('out_ready', 1, 'response consumer ready'),
  };

  // ---- A: input registers; in_ready is a register ----------------------------------------------
  const input = registeredInput(m, {
    valid: io.valid,
    op: io.op,
    flags: {
      ins: { codes: [BITWISE_OP.insert, BITWISE_OP.testAndInsert], qualified: true },
      query: { codes: [BITWISE_OP.query, BITWISE_OP.testAndInsert], qualified: false },
      clear: { codes: [BITWISE_OP.clear], qualified: true },
    },
    data: { key: io.key, tag: io.tag },
    name: 'in',
  });
  const { ins, query, clear } = input.flags;
  const maxDepth = Math.max(...c.levels.map((L) => L.depth));
  const sweep = clearSweep(m, { addrBits: Math.log2(maxDepth), depth: maxDepth });
  const queueDepth = responseQueueDepth(c);
  const occ = io.outReady ? occupancy(m, { capacity: queueDepth }) : null;
  const sweepStart = m.pipe(clear, SWEEP_START, 'sweep_start');
  const { active: sweepActive } = sweep.connectLookahead(sweepStart);
  // Queue room (no queue when `direct`) judged without this cycle's pop; none while a sweep runs or starts.
  const clearOnWire = input.fire.and(decodeOp(io.op, [BITWISE_OP.clear]));
  input.setReady((occ?.fullAfter(input.fire).or(sweep.busy) ?? sweep.busy).or(clear).or(sweepStart).or(clearOnWire));

  // ---- A+1 .. A+6: the request's fields travel with it --------------------------------------------
  const s2 = pipeStage(m, 's2', { valid: input.valid, ins, query, tag: input.data.tag });
  const s3 = pipeStage(m, 's3', s2); // R: block RAM reads
  const s4 = pipeStage(m, 's4', s3);
  const s5 = pipeStage(m, 's5', s4);
  const s6 = pipeStage(m, 's6', s5); // the update
  // The op in the update stage writes: a register of its own (it gates the forwarding compares).
  const writing = m.pipe(s5.valid.and(s5.ins), 1, 's6_writing');

  // ---- banks: hash, read, forward (A+1 .. A+5) ---------------------------------------------------
  const banks = c.levels.map((L, i) =>
    Array.from({ length: L.k }, (_, j) =>
      m.scope(`l${i}_b${j}`, () =>
        bank(m, c, L, i, j, {
          key: input.data.key,
          read: s3.valid,
          writing,
          sweep: { write: sweepActive, addr: sweep.addr },
          forwarding: opts.forwarding ?? true,
          drop: opts.drop ?? [],
        }),
      ),
    ),
  );

  // ---- A+6: the carry decision and the update -----------------------------------------------------
  const allFull = update(m, c, banks);

  // ---- A+7: the counters as read, registered; then the minimum trees ---------------------------
  const s7 = pipeStage(m, 's7', { ...omit(s6, 'ins'), sat: allFull.and(s6.ins.or(s6.query)) });
  const values = banks.map((level, i) =>
    level.map((b, j) => m.pipe(b.rmw.value, 1, `s7_l${i}_v${j}`, { reset: null })),
  );
  const minima = minimumTrees(m, values);
  // hit: some level has every counter non-zero (= count > 0), computed beside the trees.
  let hit = values.map((level) => level.map((v) => v.any()).reduce((a, b) => a.and(b))).reduce((a, b) => a.or(b));
  let last = s7;
  for (let t = 1; t <= minStages(c); t++) {
    last = pipeStage(m, `m${t}`, last);
    hit = m.pipe(hit, 1, `m${t}_hit`, { reset: null });
  }
  const count = m.cat(...[...minima].reverse());

  // ---- response queue (a `direct` lane shard has none: the last stage's values are its outputs) ---
  const fields = [last.tag, hit.and(last.query), m.mux(last.query, count, 0), last.sat];
  const rq = io.outReady ? responseQueue(m, queueDepth, last.valid, fields, io.outReady, { oneHotWrite: true }) : null;
  if (rq && occ) occ.step(input.fire, rq.pop);
  const head = rq ? rq.head : fields;
  m.output('in_ready', input.ready, 'request accepted when in_valid and in_ready');
  m.output('out_valid', rq ? rq.outValid : last.valid, rq ? 'response available' : 'response valid (no out_ready)');
  m.output('out_tag', head[0]!, 'tag of the request');
  m.output('out_hit', head[1]!, 'count > 0 (0 for insert, clear)');
  m.output('out_count', head[2]!, 'the count, sum of the levels minima weighted 2^(widths below)');
  m.output('out_sat', head[3]!, 'every level of the key at its maximum (an insert is dropped)');
  return m.build();
}

interface BankInputs {
  key: Sig;
  read: Sig;
  writing: Sig;
  sweep: { write: Sig; addr: Sig };
  forwarding: boolean;
  drop: readonly ForwardPath[];
}

interface Bank {
  L: LevelLayout;
  rmw: LaneRmw;
  /** The "at the maximum" flag of the value the op one ahead gave its counter (a register, closed by `update`). */
  prevMax: ReturnType<ModuleBuilder['reg']>;
}

/** Bank j of level i: its hash (A+1, A+2), its block RAM with read-modify-write and forwarding. */
function bank(m: ModuleBuilder, c: BitwiseDerived, L: LevelLayout, i: number, j: number, x: BankInputs): Bank {
  const idx = chunkedH3(m, {
    key: x.key,
    bits: L.indexBits,
    seed: c.seed,
    salt: hashSalt(i, j),
    chunkBits: HASH_CHUNK,
    name: 'hash',
  });
  const addr = m.pipe(idx.slice(L.indexBits - 1, L.laneBits), 1, 'raddr', { reset: null });
  const lane = L.laneBits === 0 ? null : m.pipe(idx.slice(L.laneBits - 1, 0), 1, 'rlane', { reset: null });
  const rmw = laneRmw(m, {
    cellBits: L.width,
    lanes: L.lanes,
    depth: L.depth,
    addr,
    lane,
    read: x.read,
    writing: x.writing,
    clear: { write: x.sweep.write, addr: x.sweep.addr.trunc(L.addrBits) },
    forwarding: x.forwarding,
    drop: x.drop,
    flags: (v) => [v.all(), atLeastMaxMinus1(m, v), satInc(m, v)],
  });
  const prevMax = m.reg('prev_max', 1, { reset: null });
  return { L, rmw, prevMax };
}

/**
 * v + 1, staying at the maximum (the counting filter's saturating increment), as plain logic —
 * bit b = v_b XOR (v_0 … v_{b−1}), all ones when v is — with no adder: an adder is a carry chain
 * that the LUT mapping fuses with the decision logic around it (measured: a LUT level more).
 */
function satInc(m: ModuleBuilder, v: Sig): Sig {
  if (v.width === 1) return m.const(1, 1);
  const all = v.all();
  const bits = Array.from({ length: v.width }, (_, b) =>
    b === 0
      ? v.bit(0).not().or(all)
      : v
          .bit(b)
          .xor(v.slice(b - 1, 0).all())
          .or(all),
  );
  return m.cat(...bits.reverse());
}

/** v ≥ 2^w − 2 (at the maximum after one increment): the high w − 1 bits all ones. */
function atLeastMaxMinus1(m: ModuleBuilder, v: Sig): Sig {
  return v.width === 1 ? m.const(1, 1) : v.slice(v.width - 1, 1).all();
}

/**
 * The update of A+6 for every bank (see the header); closes each bank with its new counter and
 * its "at the maximum" flag. Returns "every level full" (the op's key is saturated).
 *
 * Built for depth (the loop from one op's update to the next op's): every input is a register or
 * one LUT of registers — whether to take the op one ahead's value (`same`), its value, its "at
 * the maximum" flag, its value + 1; the key's own counter and its three flags (registered in
 * A+5) — then full_i (an AND over the level's banks), then each counter's new value, a function
 * of the full flags of the levels up to its own and of its candidates. A saturated add (every
 * level full) is not undone here: the update is made void (`commit`'s skip), so the new values
 * ignore it — the top level increments whenever the carry reaches it, a lower level is zeroed
 * whenever the carry passes it — and the full flags of the levels above never reach a lower
 * level's counter.
 */
function update(m: ModuleBuilder, c: BitwiseDerived, banks: Bank[][]): Sig {
  const flags = banks.map((level) =>
    level.map((b) => {
      const r = b.rmw;
      return {
        isMax: m.mux(r.same, b.prevMax, r.mineFlags[0]!),
        // v >= max − 1: "at the maximum" after an increment.
        incMax: m.mux(r.same, atLeastMaxMinus1(m, r.prev), r.mineFlags[1]!),
        inc: m.mux(r.same, satInc(m, r.prev), r.mineFlags[2]!),
      };
    }),
  );
  const full = flags.map((level) => level.map((f) => f.isMax).reduce((a, b) => a.and(b)));
  // carry[i]: every level below i is full (the add reaches level i); carry[l]: saturated.
  const carry: Sig[] = [m.const(1, 1)];
  for (let i = 0; i < c.levels.length; i++) carry.push(i === 0 ? full[0]! : carry[i]!.and(full[i]!));
  const allFull = carry[c.levels.length]!;
  const top = c.levels.length - 1;
  banks.forEach((level, i) => {
    // The top level increments when the carry reaches it (were it full, the add would be void).
    const inc = i === top ? carry[i]! : carry[i]!.and(full[i]!.not());
    const zero = i === top ? m.const(0, 1) : carry[i + 1]!;
    level.forEach((b, j) => {
      const f = flags[i]![j]!;
      b.rmw.commit(m.mux(inc, f.inc, m.mux(zero, 0, b.rmw.value)), allFull);
      b.prevMax.next(m.mux(inc, f.incMax, m.mux(zero, 0, f.isMax)));
    });
  });
  return allFull;
}

/** Per level, the minimum of its counters: a tree of 2-input minima, each tree level registered. */
function minimumTrees(m: ModuleBuilder, values: Sig[][]): Sig[] {
  const depth = Math.ceil(Math.log2(Math.max(...values.map((v) => v.length))));
  return values.map((level, i) => {
    let cur = level;
    for (let t = 1; t <= depth; t++) {
      const next: Sig[] = [];
      for (let p = 0; p < cur.length; p += 2) {
        const a = cur[p]!;
        const b = cur[p + 1];
        next.push(m.pipe(b === undefined ? a : m.mux(b.lt(a), b, a), 1, `m${t}_l${i}_min${p >> 1}`, { reset: null }));
      }
      cur = next;
    }
    return cur[0]!;
  });
}
