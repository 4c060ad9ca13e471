/**
 * RTL generator for APBF and APBBF pipelines (II = 1, fixed latency, in-order responses).
 *
 * Ports (all synchronous to clk):
 *   in_valid, in_ready      request handshake; in_ready (a register) is low only while a
 *                           reset/clear sweep runs, or when the two-entry input skid buffer is
 *                           full because the response queue is full (back-pressure) or a shift
 *                           would reuse a spare bank whose clearing has not finished (never under
 *                           the zero-stall bound checked by the config)
 *   in_op[2:0]              0 query, 1 insert, 2 test-and-insert, 3 tick (forced shift), 4 clear
 *   in_key, in_tag          the key, and a tag returned with the response
 *   out_valid, out_ready    response handshake; responses come in request order
 *   out_tag, out_hit        the request's tag; hit = membership (query, test-and-insert: as of
 *                           before the op's own insert), 0 for the other ops
 *
 * Pipeline (a request accepted in cycle A, i.e. in_valid && in_ready at a rising edge). Every
 * stage boundary is a register; the stages were cut where nextpnr's critical path pointed:
 *   A    input skid buffer (two entries, so in_ready is a register and the op arrives decoded)
 *   A+1  accept: generation counter, shift decision, window/write masks (registered, rotated on
 *        each shift: the circular base index is kept as precomputed masks, never as an adder);
 *        accept itself is one LUT4 of registers (queue room and "no sweep" are precomputed)
 *   A+2  H3 hashes of the key for every bank, in 16-bit key chunks (APBBF: 4-bit), each
 *        registered (a lane design's APBF shard with keys up to 32 bits: the key registered again)
 *   A+3  the chunks are XORed and the full hash registered (that shard: the whole key hashed in
 *        one piece into the hash register)
 *   A+4  block RAM read of every bank column, one word each
 *   A+5  the block RAM word is registered (corrected by a write that landed at the read's edge)
 *   A+6  forward the previous cycle's write to the same word if any; test the bit; inserts write
 *        the word with their bit set (read-modify-write, a whole word); per-column match
 *        registered
 *   A+7  window p = valid(p) AND k consecutive segments match (registered per window)
 *   A+8  hit = OR over windows (registered)
 *   A+9  the response enters the response queue (RESPONSE_QUEUE = 16 entries, enough for a
 *        full pipeline so a ready consumer never causes a stall)
 *   A+10 out_valid (latency LATENCY = 10 cycles when out_ready is high); a lane design's
 *        `direct` shard has no response queue and no out_ready: out_valid at A+9 (9 cycles)
 *
 * Aging without stalls: P = k+l+spares banks. On a shift the bank leaving the window becomes a
 * spare and a clear channel zeroes it in the background through its write port (which no insert
 * uses), one word per cycle, starting CLEAR_DELAY cycles later so in-flight reads of it finish.
 * `deriveApbf` rejects configs where that cannot finish before the bank is reused.
 * Reset, power-up and the clear op sweep every bank with in_ready low for CLEAR_DELAY + depth cycles.
 *
 * A lane design's shard (`direct`, src/families/apbf/lanes.ts) is leaner, for a part the 4-lane
 * preset fills: a one-entry input (`directInput`: its sender, the lane dispatcher, sends only
 * while the shard is ready and never while its head is held, so the head's registers load the
 * input every cycle, without enables), no generation counter (it shifts on the dispatcher's
 * ticks only: `generation`), the whole key hashed in one piece (up to 32 bits, the key and not
 * the hash waiting a stage: `s2_key`), the bit's
 * one-hot decoded a stage later (`lateOnehot`), the bank ports' clear address shared (one
 * channel), and the channels stopped by a clear a cycle after it (`clear_q`). Same latency, same
 * answers; README "Leaner APBF shards".
 *
 * Composition (src/stages/): skidInput (A; directInput in a lane design's shard), clearChannels
 * and clearSweep in its 'next-state' form, occupancy (A+1), pipeStage (every stage), wideH3
 * (A+2, A+3), testAndSetColumn per bank column (A+4..A+6), consecutiveMatch (A+7),
 * responseQueue (A+9). APBF-only and kept here: the generation counter, the window masks, accept
 * and the bank wiring. The order of the DSL calls fixes the net numbering and declaration order
 * of the Verilog (the presets' fmax was measured on exactly that netlist), so stages with
 * feedback have methods called where their logic always was (`advance`, `release`, `setReady`,
 * `connect`, `finish`, `close`).
 */
import { ModuleBuilder, type Reg, type Sig } from '../../dsl/module.js';
import type { Design } from '../../ir/types.js';
import { apbfLayout, hashSalt, H3_UNIT_BITS } from './model.js';
import { bitsFor } from '../../stages/primitives.js';
import { occupancy, responseQueue } from '../../stages/responseQueue.js';
import { omit, pipeStage } from '../../stages/pipeline.js';
import { wideH3 } from '../../stages/hash.js';
import { consecutiveMatch } from '../../stages/windows.js';
import { testAndSetColumn } from '../../stages/rmw.js';
import { directInput, skidInput, type SkidInput } from '../../stages/input.js';
import { clearChannels, clearSweep, type ClearChannels } from '../../stages/clear.js';
import type { ApbfDerived } from './types.js';
import { apbfMeta, OP, RESPONSE_QUEUE } from './params.js';

/**
 * Key bits per registered piece of an H3 hash. The APBBF's hashes fan the key out to eight
 * banks of units; 4-bit pieces put one LUT level after that fan-out. Chosen with `bloomforge
 * synth --seeds 3` on the presets (median fmax, HX8K): APBF (4, 3) 155.5 MHz at 16 bits, 149.4
 * at 8, 147.1 at 4; APBBF (2, 5, 512, 4) 140.2 at 16, 144.6 at 8, 146.2 at 4.
 */
function hashChunk(c: ApbfDerived): number {
  if (c.filter === 'apbbf') return 4;
  // A lane design's APBF shard (`direct`): the whole key in one piece up to 32 bits (each hash
  // bit an XOR of about 16 key bits, two or three LUT4 levels): a register less per hash bit and
  // fewer LUTs, on a part the 4-lane preset fills (README "Leaner APBF shards").
  return c.direct && c.keyBits <= 32 ? c.keyBits : 16;
}

/** P-bit mask with the bits of logical positions `from..to` (inclusive) set, base 0. */
function maskConst(P: number, from: number, to: number): bigint {
  let v = 0n;
  for (let i = from; i <= to; i++) v |= 1n << BigInt(i % P);
  return v;
}

/** Name of the block RAM holding column `part` of bank `bank` (as the DSL scopes produce it). */
export function memoryName(bank: number, part: number, parts: number): string {
  return parts === 1 ? `bank${bank}_ram` : `bank${bank}_col${part}_ram`;
}

export interface BuildOptions {
  /**
   * Forward the previous cycle's write to a read of the same word (default true). Turning it off
   * exists only so tests can show that the verification catches the hazard.
   */
  forwarding?: boolean;
}

export function buildApbf(c: ApbfDerived, opts: BuildOptions = {}): Design {
  const m = new ModuleBuilder(c.name);
  Object.assign(m.meta, apbfMeta(c));
  const io = apbfPorts(m, c);

  // ---- input skid buffer: in_ready is a register, ops arrive decoded -----------------------
  // in_ready = skid empty and no reset/clear sweep running, one register computed from both
  // next states; so the sweep's busy flag exists before the input stage.
  const sweepBusy = m.reg('sweep_busy', 1, { reset: 1 });
  const input = (c.direct ? directInput : skidInput)(m, {
    valid: io.valid,
    op: io.op,
    flags: {
      ins: [OP.insert, OP.testAndInsert],
      query: [OP.query, OP.testAndInsert],
      tick: [OP.tick],
      clear: [OP.clear],
    },
    data: { tag: io.tag, key: io.key },
    name: 'in',
  });
  const head = input.head;

  // ---- accept stage: generation control, window masks, clearing -----------------------------
  const acc = acceptStage(m, c, input, sweepBusy);

  // ---- stages 1..5: the request's fields travel with it ------------------------------------
  const s1 = pipeStage(m, 's1', {
    valid: acc.accept,
    ins: head.ins,
    query: head.query,
    tag: input.data.tag,
    key: input.data.key,
    window: acc.validNow,
    write: acc.writeMaskAfter,
  });
  const s2 = pipeStage(m, 's2', omit(s1, 'key')); // hash pieces registered
  // One piece and one unit (a lane shard's APBF with keys up to 32 bits): the key, not the hash,
  // waits a stage (one register of the key's width per shard in place of one of the hash's per
  // bank), then every bank hashes it into its hash register: the same value in the same cycle.
  const onePiece = c.direct === true && hashChunk(c) >= c.keyBits && apbfLayout(c).hashBits <= H3_UNIT_BITS;
  const key2 = onePiece ? m.pipe(s1.key, 1, 's2_key', { reset: null }) : null;
  const s3 = pipeStage(m, 's3', s2); // hashes registered, block RAM read
  const s4 = pipeStage(m, 's4', s3); // block RAM data registered
  const s5 = pipeStage(m, 's5', s4); // read-modify-write, segment matches
  const x: BankContext = {
    c,
    forwarding: opts.forwarding ?? true,
    key: s1.key,
    key2,
    read: s3.valid,
    s4,
    channels: acc.channels,
    sweep: acc.sweep,
  };
  const segMatch = Array.from({ length: apbfLayout(c).banks }, (_, p) => m.scope(`bank${p}`, () => bank(m, x, p)));

  // ---- stages 6..8: k consecutive matches in age order -----------------------------------
  const s6 = pipeStage(m, 's6', s5);
  // Stage 7: window p holds when it is valid and its k segments match (registered per window);
  // stage 8: the hit is the OR over windows (registered before the response queue).
  const windows = consecutiveMatch(m, { match: segMatch, valid: s6.window, k: c.k, name: 's7_windows' });
  const s7 = pipeStage(m, 's7', s6);
  const hit = m.pipe(windows.any().and(s7.query), 1, 's8_hit', { reset: null });
  const s8 = pipeStage(m, 's8', s7);

  // ---- response queue (registers); a lane design's shard answers straight from stage 8 ---------
  m.output('in_ready', input.ready, 'request accepted when in_valid and in_ready');
  if (c.direct) {
    acc.close(null);
    m.output('out_valid', s8.valid, 'response valid (taken as it comes: no out_ready)');
    m.output('out_tag', s8.tag, 'tag of the request');
    m.output('out_hit', hit, 'membership answer (0 for insert, tick, clear)');
    m.output(
      'tick_ok',
      acc.selBusy.not(),
      'a shift accepted now would not wait for its spare to be cleared (a register; the lane dispatcher sends a tick only then)',
    );
    return m.build();
  }
  const rq = responseQueue(m, RESPONSE_QUEUE, s8.valid, [s8.tag, hit], io.outReady!);
  acc.close(rq.pop);

  m.output('out_valid', rq.outValid, 'response available');
  m.output('out_tag', rq.head[0]!, 'tag of the request');
  m.output('out_hit', rq.head[1]!, 'membership answer (0 for insert, tick, clear)');
  return m.build();
}

function apbfPorts(m: ModuleBuilder, c: ApbfDerived) {
  return {
    valid: m.input('in_valid', 1, 'request valid'),
    op: m.input('in_op', 3, 'operation: 0 query, 1 insert, 2 test-and-insert, 3 tick, 4 clear'),
    key: m.input('in_key', c.keyBits, 'key'),
    tag: m.input('in_tag', c.tagBits, 'tag, returned with the response'),
    outReady: c.direct ? null : m.input('out_ready', 1, 'response consumer ready'),
  };
}

type HeadFlag = 'ins' | 'query' | 'tick' | 'clear';

/**
 * The accept stage (A+1): the generation counter, the window masks, the clear channels and the
 * sweep, and accept itself. `close(pop)` closes the occupancy count and head_go once the response
 * queue exists (`close(null)` for a direct shard: head_go without a queue's room).
 */
function acceptStage(m: ModuleBuilder, c: ApbfDerived, input: SkidInput<HeadFlag, 'tag' | 'key'>, sweepBusy: Reg) {
  const P = apbfLayout(c).banks;
  const depth = c.columnDepth;
  const aBits = Math.log2(depth);
  const head = input.head;
  // A lane design's shard ages only on the dispatcher's ticks (below: `generation`).
  const gen = generation(m, c.generation, c.direct === true);
  const masks = windowMasks(m, P, c.k, c.l);
  // Clear channels (one per spare) and the reset/clear sweep.
  const channels = clearChannels(m, { count: c.spares, addrBits: aBits, banks: P, sharedAddr: c.direct === true });
  const sweep = clearSweep(m, { addrBits: aBits, depth, busy: sweepBusy });
  // The channel the next shift starts (round robin).
  const chanSel = c.spares > 1 ? m.reg('clr_next', bitsFor(c.spares - 1)) : null;
  // Requests in flight or queued, as a thermometer (bit i: more than i).
  const occ = c.direct ? null : occupancy(m, { capacity: RESPONSE_QUEUE });
  // The head is accepted when there is room in the response queue, no sweep runs, and it does
  // not shift onto a spare still being cleared: four registers (room and no sweep are one,
  // computed from the next-state values), so accept is one LUT4.
  const headGo = m.reg('head_go', 1); // head valid, queue room (none in a direct shard), no sweep
  // The head is an insert, tick or clear (not in a lane shard, which counts nothing).
  const headCounts = c.direct ? null : m.reg('head_counts', 1);
  const selBusyReg = m.reg('sel_busy', 1);
  const notHeld = gen.wantShift.and(selBusyReg).not();
  const accept = headGo.and(notHeld);
  const { headValidNext, next: headNext } = input.advance(accept);
  // accept && wantShift, and accept && clear (a clear never shifts), each written as one LUT4
  // of registers so the enables of the masks and channels do not wait on accept.
  const shiftNow = headGo.and(gen.wantShift).and(selBusyReg.not());
  const clearNow = headGo.and(head.clear);
  gen.connect({ accept, headGo, notHeld, headCounts, head, headNext });
  input.release(accept);
  const { validNow, writeMaskAfter, clearQ } = masks.update(shiftNow, clearNow);
  const chanSelNext = chanSel
    ? m.mux(clearNow, 0, m.mux(shiftNow, m.mux(chanSel.eq(c.spares - 1), 0, chanSel.add(1)), chanSel))
    : null;
  if (chanSel && chanSelNext) chanSel.next(chanSelNext);
  const { busyNext } = channels.connect({
    start: shiftNow,
    select: chanSel,
    // A direct shard's channels stop a cycle after the clear (`clear_q`, a register): until then
    // a channel may write one more zero to the bank it clears, which the clear's sweep zeroes
    // anyway (it writes from CLEAR_DELAY cycles on), and no shift starts one (none is accepted
    // until the sweep ends).
    abort: c.direct ? clearQ : clearNow,
    depth,
    // The cycle after its start the channel learns its bank: the spare after the newest, read
    // while the mask registers still hold the values from before the shift.
    target: () => masks.rotR(masks.newestSpare),
  });
  // Whether the spare the next shift reuses is still being cleared.
  selBusyReg.next(
    chanSelNext === null
      ? busyNext[0]!
      : busyNext.reduce<Sig>((acc, bn, i) => m.mux(chanSelNext.eq(i), bn, acc), m.const(0, 1)),
  );
  const sweepRun = sweep.connectNextState(clearNow);
  input.setReady(sweepRun.busyNext);
  sweepRun.finish();

  const close = (pop: Sig | null): void => {
    if (!occ) {
      // A direct shard: no response queue to keep room in.
      headGo.next(headValidNext.and(sweepRun.busyNext.not()));
      return;
    }
    if (!pop) throw m.error('acceptStage: a pipeline with a response queue closes with its pop');
    occ.step(accept, pop);
    // Room for the next head: judged without this cycle's pop, so the consumer's out_ready does
    // not reach head_go (a full queue that pops costs one cycle; a ready consumer never fills it).
    const fullAfter = occ.fullAfter(accept);
    headGo.next(headValidNext.and(fullAfter.or(sweepRun.busyNext).not()));
  };
  return {
    accept,
    validNow,
    writeMaskAfter,
    channels,
    sweep: { active: sweepRun.active, addr: sweep.addr },
    close,
    selBusy: selBusyReg as Sig,
  };
}

/**
 * The generation counter: inserts into the newest segment, and whether the head request shifts
 * if accepted (an insert at a full generation, or a tick). `connect` closes it once accept exists.
 *
 * `ticksOnly` (a lane design's shard): no counter; the head shifts when it is a tick. The lane
 * dispatcher counts every lane's inserts into the generation and sends every shard a tick
 * before the insert that would find it full (src/lanes/rtl.ts), so a shard, which sees at most
 * the generation's inserts between two ticks, never finds its own count full before an insert:
 * its counter could never shift it, and was only logic on the shard's accept path.
 */
function generation(m: ModuleBuilder, g: number, ticksOnly: boolean) {
  if (ticksOnly) {
    const wantShift = m.reg('head_shifts', 1);
    const connect = (o: { headNext: (f: HeadFlag) => Sig }): void => wantShift.next(o.headNext('tick'));
    return { wantShift, connect };
  }
  const count = m.reg('gen_count', bitsFor(g));
  // count == g, registered (computed from the next count) to keep the compare off the accept path.
  const full = m.reg('gen_full', 1);
  // Whether the head request shifts if accepted, kept in a register computed from the next head
  // and the next count, so accept and the shift enables are two LUT levels from registers.
  const wantShift = m.reg('head_shifts', 1);
  const connect = (o: {
    accept: Sig;
    headGo: Sig;
    notHeld: Sig;
    /** Register: the head is an insert, tick or clear (driven here, from the next head). */
    headCounts: Reg | null;
    head: Record<HeadFlag, Sig>;
    headNext: (f: HeadFlag) => Sig;
  }): void => {
    const { head, headNext } = o;
    // Register r takes f(flags of the head's next value).
    const fromNext = (r: Reg, f: (flag: (x: HeadFlag) => Sig) => Sig): void => r.next(f(headNext));
    const restart = o.accept.and(head.clear.or(head.tick));
    const counts = o.accept.and(head.ins);
    // The count changes on an accepted insert, tick or clear: one LUT4 of registers enables it.
    const headCounts = o.headCounts;
    if (!headCounts) throw m.error('generation: a counting pipeline needs head_counts');
    const countEn = o.headGo.and(headCounts).and(o.notHeld);
    count.next(m.mux(countEn, m.mux(head.ins, m.mux(full, 1, count.add(1)), 0), count));
    fromNext(headCounts, (h) => h('ins').or(h('tick')).or(h('clear')));
    // gen_full (count == g) and gen_last (count == g - 1) follow the count: the only compare is
    // count == g - 2 on the register itself, so no adder feeds a compare on the accept path.
    const last = m.reg('gen_last', 1, { reset: g === 1 ? 1 : 0 });
    const fullNext = m.mux(restart, 0, m.mux(counts, m.mux(full, g === 1 ? 1 : 0, last), full));
    full.next(fullNext);
    last.next(
      m.mux(
        restart,
        g === 1 ? 1 : 0,
        m.mux(counts, m.mux(full, g === 2 ? 1 : 0, g >= 2 ? count.eq(g - 2) : m.const(0, 1)), last),
      ),
    );
    fromNext(wantShift, (h) => h('ins').and(fullNext).or(h('tick')));
  };
  return { wantShift, connect };
}

/**
 * The circular window as P-bit masks (rotated on each shift: the base index is never an adder):
 * the banks a query may use as a window start, the banks an insert writes, the newest spare.
 * `update` closes them; the masks take a shift or a clear one cycle after the accept that made
 * it (`shift_q`, `clear_q`), so their enables come straight from registers, and the accept stage
 * uses the effective masks (rotated when a shift is pending). After a clear no request is
 * accepted until the sweep ends, so a pending clear needs no such correction.
 */
function windowMasks(m: ModuleBuilder, P: number, k: number, l: number) {
  const valid = m.reg('window_mask', P, { reset: maskConst(P, 0, l) });
  const write = m.reg('write_mask', P, { reset: maskConst(P, 0, k - 1) });
  const newestSpare = m.reg('newest_spare', P, { reset: maskConst(P, k + l, k + l) });
  const rotR = (x: Sig): Sig => (P === 1 ? x : m.cat(x.bit(0), x.slice(P - 1, 1)));
  const update = (shiftNow: Sig, clearNow: Sig): { validNow: Sig; writeMaskAfter: Sig; clearQ: Sig } => {
    const shiftQ = m.pipe(shiftNow, 1, 'shift_q');
    const clearQ = m.pipe(clearNow, 1, 'clear_q');
    const validNow = m.mux(shiftQ, rotR(valid), valid);
    const writeNow = m.mux(shiftQ, rotR(write), write);
    const writeMaskAfter = m.mux(shiftNow, rotR(writeNow), writeNow);
    valid.next(m.mux(clearQ, maskConst(P, 0, l), validNow));
    write.next(m.mux(clearQ, maskConst(P, 0, k - 1), writeNow));
    newestSpare.next(m.mux(clearQ, maskConst(P, k + l, k + l), m.mux(shiftQ, rotR(newestSpare), newestSpare)));
    return { validNow, writeMaskAfter, clearQ };
  };
  return { newestSpare, rotR, update };
}

/** What every bank shares. */
interface BankContext {
  c: ApbfDerived;
  forwarding: boolean;
  /** The key (stage 1), the read enable (stage 3), the insert's fields (stage 4). */
  /** The key of stage 2, where the hash is one piece and one unit (else null). */
  key2: Sig | null;
  key: Sig;
  read: Sig;
  s4: { valid: Sig; ins: Sig; write: Sig };
  channels: ClearChannels;
  sweep: { active: Sig; addr: Sig };
}

/**
 * Bank p (segment): its hash, its clear port and its b block RAM columns (one per part of a
 * block: APBBF); returns the segment's match (every column's bit set), registered per column.
 */
function bank(m: ModuleBuilder, x: BankContext, p: number): Sig {
  const { c } = x;
  const L = apbfLayout(c);
  const b = c.bitsPerBlock;
  const wBits = Math.log2(c.wordBits);
  const aBits = Math.log2(c.columnDepth);
  // The H3 XOR trees split in key chunks of hashChunk(c) bits, registered, XORed after the
  // register (16 key bits: two LUT4 levels); or with `key2`, one piece from the waiting key.
  const hash = x.key2
    ? m.pipe(m.h3(x.key2, L.hashBits, { seed: c.seed, salt: hashSalt(p, 0) }), 1, 'hash', { reset: null })
    : wideH3(m, {
        key: x.key,
        bits: L.hashBits,
        unitBits: H3_UNIT_BITS,
        seed: c.seed,
        salt: (u) => hashSalt(p, u),
        chunkBits: hashChunk(c),
        name: 'hash',
      });
  const block = hash.slice(b * L.offsetBits + L.blockIndexBits - 1, b * L.offsetBits);
  // Clearing: any channel targeting this bank, or the sweep. Enable and address pass two
  // registers per bank (the zero lands two cycles after the channel issues it, still before
  // an op accepted after the channel finishes reads the bank), as does the insert's enable,
  // so the write port and the forwarding register see one LUT level from registers.
  const clr = x.channels.bankPort(p, x.sweep);
  const insWriteNext = x.s4.valid.and(x.s4.ins).and(x.s4.write.bit(p));
  const insWrite = m.pipe(insWriteNext, 1, 'ins_write');
  // The write enable, insert or clear, in one register.
  const writeEn = m.pipe(insWriteNext.or(clr.issue), 1, 'write_en');
  const partMatch = Array.from({ length: b }, (_, j) => {
    const inColumn = <T>(fn: () => T): T => (b === 1 ? fn() : m.scope(`col${j}`, fn));
    return inColumn(() => {
      const offset = L.offsetBits === 0 ? null : hash.slice((j + 1) * L.offsetBits - 1, j * L.offsetBits);
      const colIdx = offset === null ? block : m.cat(block, offset);
      return testAndSetColumn(m, {
        width: c.wordBits,
        depth: c.columnDepth,
        addr: colIdx.slice(wBits + aBits - 1, wBits),
        bit: wBits === 0 ? null : colIdx.slice(wBits - 1, 0),
        read: x.read,
        writing: insWrite,
        writeEn,
        clear: clr,
        forwarding: x.forwarding,
        matchName: 's6_match', // the columns of a bank are ANDed in stage 7
        lateOnehot: c.direct === true,
      }).match;
    });
  });
  return partMatch.reduce((a, y) => a.and(y));
}
