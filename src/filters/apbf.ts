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
 * Pipeline (a request accepted in cycle A, i.e. in_valid && in_ready at a rising edge):
 *   A    input skid buffer (two entries, so in_ready is a register and the op arrives decoded)
 *   A+1  accept: generation counter, shift decision, window/write masks (registered, rotated on
 *        each shift: the circular base index is kept as precomputed masks, never as an adder)
 *   A+2  H3 hashes of the key for every bank (split in 32-bit key chunks, registered)
 *   A+3  block RAM read of every bank column, one word each
 *   A+4  forward the previous cycle's write to the same word if any; test the bits; inserts write
 *        the word with their bits set (read-modify-write, a whole word)
 *   A+5  "k consecutive matching segments" = OR over valid windows of AND over k segments
 *        (registered)
 *   A+6  the response enters the response queue
 *   A+7  out_valid (latency LATENCY = 7 cycles when out_ready is high)
 *
 * Aging without stalls: P = k+l+spares banks. On a shift the bank leaving the window becomes a
 * spare and a clear channel zeroes it in the background through its write port (which no insert
 * uses), one word per cycle, starting CLEAR_DELAY cycles later so in-flight reads of it finish.
 * `deriveApbf` rejects configs where that cannot finish before the bank is reused.
 * Reset, power-up and the clear op sweep every bank with in_ready low for CLEAR_DELAY + depth cycles.
 */
import { ModuleBuilder, type Sig } from '../dsl/module.js';
import type { Design } from '../ir/types.js';
import { apbfLayout, hashSalt, H3_UNIT_BITS } from '../model/apbf.js';
import { bitsFor, responseQueue } from './common.js';
import { CLEAR_DELAY, type ApbfDerived } from './config.js';

export const OP = { query: 0, insert: 1, testAndInsert: 2, tick: 3, clear: 4 } as const;
export const LATENCY = 7;
export const RESPONSE_QUEUE = 8;

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
  const forwarding = opts.forwarding ?? true;
  const L = apbfLayout(c);
  const P = L.banks;
  const { k, l } = c;
  const b = c.bitsPerBlock;
  const W = c.wordBits;
  const wBits = Math.log2(W);
  const depth = c.columnDepth;
  const aBits = Math.log2(depth);
  const m = new ModuleBuilder(c.name);
  Object.assign(m.meta, {
    filter: c.filter,
    k,
    l,
    segmentBits: c.segmentBits,
    generation: c.generation,
    window: c.window,
    slack: c.slack,
    blockBits: c.blockBits,
    bitsPerBlock: b,
    banks: P,
    spares: c.spares,
    wordBits: W,
    latency: LATENCY,
    opcodes: OP,
  });

  const inValid = m.input('in_valid', 1, 'request valid');
  const inOp = m.input('in_op', 3, 'operation: 0 query, 1 insert, 2 test-and-insert, 3 tick, 4 clear');
  const inKey = m.input('in_key', c.keyBits, 'key');
  const inTag = m.input('in_tag', c.tagBits, 'tag, returned with the response');
  const outReady = m.input('out_ready', 1, 'response consumer ready');

  // ---- input skid buffer: in_ready is a register, ops arrive decoded -----------------------
  // Two entries: `head` feeds the accept stage; `skid` holds a request that arrived while the
  // head could not move. in_ready = skid empty. Adds one cycle of latency, no stall.
  // in_ready = skid empty and no reset/clear sweep running (both registers); defined below.
  const sweepBusy = m.reg('sweep_busy', 1, { reset: 1 });
  const readyWire = m.wire('in_ready_w', 1);
  const wireAccept = inValid.and(readyWire);
  const decoded = m.cat(
    inOp.eq(OP.insert).or(inOp.eq(OP.testAndInsert)),
    inOp.eq(OP.query).or(inOp.eq(OP.testAndInsert)),
    inOp.eq(OP.tick),
    inOp.eq(OP.clear),
    inTag,
    inKey,
  );
  const reqW = decoded.width;
  const headValid = m.reg('in_head_valid', 1);
  const inHead = m.reg('in_head', reqW, { reset: null });
  const skidValid = m.reg('in_skid_valid', 1);
  const skid = m.reg('in_skid', reqW, { reset: null });
  const extAccept = wireAccept;
  const field = (lo: number, w: number): Sig => inHead.slice(lo + w - 1, lo);
  const hKey = field(0, c.keyBits);
  const hTag = field(c.keyBits, c.tagBits);
  const flags = c.keyBits + c.tagBits;
  const isClear = inHead.bit(flags);
  const isTick = inHead.bit(flags + 1);
  const isQuery = inHead.bit(flags + 2);
  const isIns = inHead.bit(flags + 3);

  // ---- accept stage: generation control ------------------------------------------------------
  const cntBits = bitsFor(c.generation);
  const count = m.reg('gen_count', cntBits);
  // count == g, registered (computed from the next count) to keep the compare off the accept path.
  const genFull = m.reg('gen_full', 1);
  // Whether the head request shifts if accepted (insert at a full generation, or tick), kept in
  // a register computed from the next head and the next count, so accept and the shift enables
  // are two LUT levels from registers.
  const wantShift = m.reg('head_shifts', 1);

  const validMask = m.reg('window_mask', P, { reset: maskConst(P, 0, l) });
  const writeMask = m.reg('write_mask', P, { reset: maskConst(P, 0, k - 1) });
  const newestSpare = m.reg('newest_spare', P, { reset: maskConst(P, k + l, k + l) });
  const rotR = (x: Sig): Sig => (P === 1 ? x : m.cat(x.bit(0), x.slice(P - 1, 1)));

  // Clear channels (one per spare) and the reset/clear sweep.
  const dBits = bitsFor(CLEAR_DELAY);
  const channels = Array.from({ length: c.spares }, (_, i) => ({
    busy: m.reg(`clr${i}_busy`, 1),
    delay: m.reg(`clr${i}_delay`, dBits),
    addr: m.reg(`clr${i}_addr`, aBits),
    target: m.reg(`clr${i}_target`, P),
  }));
  const sweepDelay = m.reg('sweep_delay', dBits, { reset: CLEAR_DELAY });
  const sweepAddr = m.reg('sweep_addr', aBits);
  const chanSel = c.spares > 1 ? m.reg('clr_next', bitsFor(c.spares - 1)) : null;

  const occ = m.reg('occupancy', bitsFor(RESPONSE_QUEUE));
  // Registered from next-state values, so in_ready is a shallow function of registers and in_op:
  // room in the response queue, and whether the spare a shift would reuse is still being cleared.
  const occRoom = m.reg('occ_room', 1, { reset: 1 });
  const selBusyReg = m.reg('sel_busy', 1);
  const blocked = sweepBusy.or(wantShift.and(selBusyReg));
  const intReady = occRoom.and(blocked.not());
  const accept = headValid.and(intReady);
  // Skid buffer moves: the head leaves on accept (or is empty) and refills from skid or input.
  const headFree = accept.or(headValid.not());
  headValid.next(m.mux(headFree, skidValid.or(extAccept), 1));
  const headNext = m.mux(headFree, m.mux(skidValid, skid, decoded), inHead);
  inHead.next(headNext);
  skidValid.next(m.mux(skidValid, headFree.not(), extAccept.and(headFree.not())));
  skid.next(m.mux(skidValid, skid, decoded));
  const inReady = skidValid.not().and(sweepBusy.not());
  readyWire.assign(inReady);
  const shiftNow = accept.and(wantShift);
  const clearNow = accept.and(isClear);

  const countNext = m.mux(
    accept.and(isClear.or(isTick)),
    0,
    m.mux(accept.and(isIns), m.mux(genFull, 1, count.add(1)), count),
  );
  count.next(countNext);
  const genFullNext = countNext.eq(c.generation);
  genFull.next(genFullNext);
  wantShift.next(
    headNext
      .bit(flags + 3)
      .and(genFullNext)
      .or(headNext.bit(flags + 1)),
  );
  const writeMaskAfter = m.mux(shiftNow, rotR(writeMask), writeMask);
  const nextSpare = rotR(newestSpare);
  validMask.next(m.mux(clearNow, maskConst(P, 0, l), m.mux(shiftNow, rotR(validMask), validMask)));
  writeMask.next(m.mux(clearNow, maskConst(P, 0, k - 1), writeMaskAfter));
  newestSpare.next(m.mux(clearNow, maskConst(P, k + l, k + l), m.mux(shiftNow, nextSpare, newestSpare)));
  const chanSelNext = chanSel
    ? m.mux(clearNow, 0, m.mux(shiftNow, m.mux(chanSel.eq(c.spares - 1), 0, chanSel.add(1)), chanSel))
    : null;
  if (chanSel && chanSelNext) chanSel.next(chanSelNext);

  const lastAddr = depth - 1;
  const chanActive: Sig[] = [];
  const busyNext: Sig[] = [];
  channels.forEach((ch, i) => {
    const start = chanSel === null ? shiftNow : shiftNow.and(chanSel.eq(i));
    // busy && delay == 0, registered from the next-state values (keeps the compare off the
    // block RAM write-enable path).
    const active = m.reg(`clr${i}_active`, 1);
    chanActive.push(active);
    const done = active.and(ch.addr.eq(lastAddr));
    const bn = m.mux(clearNow, 0, m.mux(start, 1, m.mux(done, 0, ch.busy)));
    busyNext.push(bn);
    ch.busy.next(bn);
    const delayNext = m.mux(start, CLEAR_DELAY, m.mux(ch.busy.and(ch.delay.ne(0)), ch.delay.sub(1), ch.delay));
    ch.delay.next(delayNext);
    active.next(bn.and(delayNext.eq(0)));
    ch.addr.next(m.mux(start, 0, m.mux(active, ch.addr.add(1), ch.addr)));
    ch.target.next(m.mux(start, nextSpare, ch.target));
  });
  selBusyReg.next(
    chanSelNext === null
      ? busyNext[0]!
      : busyNext.reduce<Sig>((acc, bn, i) => m.mux(chanSelNext.eq(i), bn, acc), m.const(0, 1)),
  );
  const sweepActive = m.reg('sweep_active', 1);
  const sweepBusyNext = m.mux(clearNow, 1, m.mux(sweepActive.and(sweepAddr.eq(lastAddr)), 0, sweepBusy));
  sweepBusy.next(sweepBusyNext);
  const sweepDelayNext = m.mux(
    clearNow,
    CLEAR_DELAY,
    m.mux(sweepBusy.and(sweepDelay.ne(0)), sweepDelay.sub(1), sweepDelay),
  );
  sweepDelay.next(sweepDelayNext);
  sweepActive.next(sweepBusyNext.and(sweepDelayNext.eq(0)));
  sweepAddr.next(m.mux(clearNow, 0, m.mux(sweepActive, sweepAddr.add(1), sweepAddr)));

  // ---- stage 1: request registers ------------------------------------------------------------
  const s1 = {
    valid: m.pipe(accept, 1, 's1_valid'),
    ins: m.pipe(isIns, 1, 's1_ins'),
    query: m.pipe(isQuery, 1, 's1_query'),
    tag: m.pipe(hTag, 1, 's1_tag', { reset: null }),
    key: m.pipe(hKey, 1, 's1_key', { reset: null }),
    window: m.pipe(validMask, 1, 's1_window', { reset: null }),
    write: m.pipe(writeMaskAfter, 1, 's1_write', { reset: null }),
  };

  // ---- stage 2: hashes, registered -----------------------------------------------------------
  const s2 = {
    valid: m.pipe(s1.valid, 1, 's2_valid'),
    ins: m.pipe(s1.ins, 1, 's2_ins'),
    query: m.pipe(s1.query, 1, 's2_query'),
    tag: m.pipe(s1.tag, 1, 's2_tag', { reset: null }),
    window: m.pipe(s1.window, 1, 's2_window', { reset: null }),
    write: m.pipe(s1.write, 1, 's2_write', { reset: null }),
  };
  const s3 = {
    valid: m.pipe(s2.valid, 1, 's3_valid'),
    ins: m.pipe(s2.ins, 1, 's3_ins'),
    query: m.pipe(s2.query, 1, 's3_query'),
    tag: m.pipe(s2.tag, 1, 's3_tag', { reset: null }),
    window: m.pipe(s2.window, 1, 's3_window', { reset: null }),
    write: m.pipe(s2.write, 1, 's3_write', { reset: null }),
  };

  const segMatch: Sig[] = [];
  for (let p = 0; p < P; p++) {
    m.scope(`bank${p}`, () => {
      // The H3 XOR trees are split in key chunks of 32 bits, registered, and XORed after the
      // register: each tree before it is half as deep for 64-bit keys.
      const chunks = Math.ceil(c.keyBits / 32);
      const units: Sig[] = [];
      for (let u = 0; u < L.hashUnits; u++) {
        const bits = Math.min(H3_UNIT_BITS, L.hashBits - H3_UNIT_BITS * u);
        const parts = Array.from({ length: chunks }, (_, q) => {
          const lo = 32 * q;
          const hi = Math.min(c.keyBits, lo + 32);
          const keyMask = ((1n << BigInt(hi - lo)) - 1n) << BigInt(lo);
          const part = m.h3(s1.key, bits, { seed: c.seed, salt: hashSalt(p, u), keyMask });
          return m.pipe(part, 1, chunks === 1 ? `hash${u}` : `hash${u}_part${q}`, { reset: null });
        });
        units.push(parts.reduce((x, y) => x.xor(y)));
      }
      const hash = m.cat(...units.reverse());
      const block = hash.slice(b * L.offsetBits + L.blockIndexBits - 1, b * L.offsetBits);
      // Clearing: any channel targeting this bank, or the sweep.
      const chanHere = channels.map((ch, i) => chanActive[i]!.and(ch.target.bit(p)));
      const clrWrite = chanHere.reduce((x, y) => x.or(y), sweepActive);
      const chanAddr = channels.reduce<Sig>((acc, ch, i) => acc.or(m.mux(chanHere[i]!, ch.addr, 0)), m.const(0, aBits));
      const clrAddr = m.mux(sweepActive, sweepAddr, chanAddr);
      const insWrite = s3.valid.and(s3.ins).and(s3.write.bit(p));
      const partMatch: Sig[] = [];
      for (let j = 0; j < b; j++) {
        const inColumn = <T>(fn: () => T): T => (b === 1 ? fn() : m.scope(`col${j}`, fn));
        inColumn(() => {
          const offset = L.offsetBits === 0 ? null : hash.slice((j + 1) * L.offsetBits - 1, j * L.offsetBits);
          const colIdx = offset === null ? block : m.cat(block, offset);
          const addr = colIdx.slice(wBits + aBits - 1, wBits);
          const bit = colIdx.slice(wBits - 1, 0);
          const mem = m.memory('ram', { width: W, depth, readDuringWrite: 'undefined' });
          const rd = mem.read(addr, s2.valid);
          const addr3 = m.pipe(addr, 1, 'addr', { reset: null });
          const bit3 = m.pipe(bit, 1, 'bit', { reset: null });
          // Forward the write made in the previous cycle (its read collided with it).
          const fwdValid = m.reg('fwd_valid', 1);
          const fwdAddr = m.reg('fwd_addr', aBits, { reset: null });
          const fwdData = m.reg('fwd_data', W, { reset: null });
          const word = forwarding ? m.mux(fwdValid.and(fwdAddr.eq(addr3)), fwdData, rd) : rd;
          const onehot = m.const(1, W).shl(bit3);
          const newWord = word.or(onehot);
          partMatch.push(word.and(onehot).any());
          fwdValid.next(insWrite);
          fwdAddr.next(addr3);
          fwdData.next(newWord);
          mem.write(m.mux(clrWrite, clrAddr, addr3), m.mux(clrWrite, 0, newWord), clrWrite.or(insWrite));
        });
      }
      segMatch.push(partMatch.reduce((x, y) => x.and(y)));
    });
  }

  // ---- stage 4: k consecutive matches in age order ---------------------------------------
  const s4 = {
    valid: m.pipe(s3.valid, 1, 's4_valid'),
    query: m.pipe(s3.query, 1, 's4_query'),
    tag: m.pipe(s3.tag, 1, 's4_tag', { reset: null }),
    window: m.pipe(s3.window, 1, 's4_window', { reset: null }),
    match: m.pipe(m.cat(...[...segMatch].reverse()), 1, 's4_match', { reset: null }),
  };
  const windows: Sig[] = [];
  for (let p = 0; p < P; p++) {
    let all = s4.window.bit(p);
    for (let i = 0; i < k; i++) all = all.and(s4.match.bit((p + i) % P));
    windows.push(all);
  }
  // Registered before the response queue (A+6), off the queue's write-enable paths.
  const hit = m.pipe(windows.reduce((x, y) => x.or(y)).and(s4.query), 1, 's5_hit', { reset: null });
  const s5 = {
    valid: m.pipe(s4.valid, 1, 's5_valid'),
    tag: m.pipe(s4.tag, 1, 's5_tag', { reset: null }),
  };

  // ---- response queue (registers) ----------------------------------------------------------
  const rq = responseQueue(m, RESPONSE_QUEUE, s5.valid, [s5.tag, hit], outReady);
  const { outValid, pop } = rq;
  const occNext = m.mux(accept.and(pop.not()), occ.add(1), m.mux(pop.and(accept.not()), occ.sub(1), occ));
  occ.next(occNext);
  occRoom.next(occNext.lt(RESPONSE_QUEUE));

  m.output('in_ready', inReady, 'request accepted when in_valid and in_ready');
  m.output('out_valid', outValid, 'response available');
  m.output('out_tag', rq.head[0]!, 'tag of the request');
  m.output('out_hit', rq.head[1]!, 'membership answer (0 for insert, tick, clear)');
  return m.build();
}
