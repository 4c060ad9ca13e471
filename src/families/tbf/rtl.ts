/**
 * RTL generator for TBF and BTBF pipelines with the expiry scanner and the optional inferential
 * decision unit (II = 1, fixed latency, in-order responses).
 *
 * Ports (all synchronous to clk):
 *   in_valid, in_ready      request handshake; in_ready is low only while a reset/clear sweep runs
 *                           or while the response queue is full (back-pressure) — never for the
 *                           expiry scan
 *   in_op[1:0]              0 query, 1 insert, 2 test-and-insert, 3 clear
 *   in_key, in_tag          the key, and a tag returned with the response
 *   in_class                (decision unit, more than one prior class) the request's prior class
 *   in_ratio                (decision unit) ⌊$FP/($FP+$FN) · 2^posteriorBits⌋ for this request
 *   out_valid, out_ready    response handshake; responses come in request order
 *   out_tag                 the request's tag
 *   out_hit                 the standard answer (as of before the op's own insert)
 *   out_lambda              λx, the age of the oldest timestamp in R_x; all ones when expired
 *   out_c                   cx: timers holding that age (when expired: how many timers expired)
 *   out_decision            (decision unit) the penalty-optimal answer
 *   (hit, lambda, c, decision are 0 for insert and clear)
 *
 * Timer banks: one per hash. A timer is {L_A, T} in a word of `timersPerWord` timers; the word
 * lives in two block RAMs written together by inserts — `timers` read by the op stream, `scan`
 * read by the expiry scanner — and beside them `marks`, one bit L_S per timer written only by
 * the scanner. A timer reads as T when L_A ≠ L_S and as Tε (expired) otherwise; an insert writes
 * {¬L_S, T+}, the scanner expires a timer by writing L_S := L_A. So the scanner owns a read port
 * and a write port of its own and never takes a cycle from the op stream (a 2-write memory made of
 * 1R1W block RAMs with an XOR-style live-value bit).
 *
 * Pipeline (a request accepted in cycle A, i.e. in_valid && in_ready at a rising edge). Every
 * stage boundary is a register; the cuts follow nextpnr's critical paths (`bloomforge synth`):
 *   A    input registers (op decoded, insert/clear already qualified by the accept); in_ready
 *        is a register (room judged without this cycle's pop)
 *   A+1  T+, b and the scan pointer advance on inserts; T+'s successor, "end of block" and the
 *        sweep's state are registers beside the counters
 *   A+2  H3 hash per bank (registered); the stale windows for the scanner and the expiry test,
 *        registered as ~lo, ~hi and wrap
 *   A+3  block RAM reads: timers[word], marks[word], scan[scan pointer]; address matches
 *        against the ops two and three ahead registered
 *   A+4  the RAM words registered, corrected by the writes of the ops two and three ahead (the
 *        latter landed at the read's edge)
 *   A+5  the op one ahead's writes applied; insert: {¬L_S, T+} into the lane; scanner (one
 *        word per insert, after the insert as in the model): lanes of age ≥ ⌈w/B⌉ + 1 marked,
 *        except lanes refreshed since the read; write data, masks and addresses registered
 *   A+6  block RAM writes (timers, its scan copy, marks); ages (T+ − T) mod (TΩ + 1) and expiry
 *        against ⌈(w − b)/B⌉ + 1
 *   A+7  every ordered pair of ages compared, expired timers counted
 *   A+8  λx = the age no other exceeds, cx = how many hold it; hit
 *   A+9  decision unit: posterior ROM read at (class, c-index, lo = (λ−1)B + b) (see
 *        src/model/tbfDecision.ts); A+10 compare with the ratio
 *   Responses enter the response queue at A+9 (A+10 with the decision unit); out_valid a cycle
 *   later: LATENCY = tbfLatency(c) = 10 (11) cycles when out_ready is high.
 * The stage numbers in register names (s<n>_…) count from A+1.
 */
import { ModuleBuilder, type Sig } from '../../dsl/module.js';
import type { Design } from '../../ir/types.js';
import { tbfSalt } from './model.js';
import { decisionLayout, decisionTable } from './decision.js';
import { bitsFor, muxTree } from '../../stages/primitives.js';
import { occupancy, responseQueue } from '../../stages/responseQueue.js';
import { omit, pipeStage } from '../../stages/pipeline.js';
import { chunkedH3 } from '../../stages/hash.js';
import { compareAges, oldestAge } from '../../stages/ages.js';
import { registeredMatch } from '../../stages/rmw.js';
import { decodeOp, registeredInput } from '../../stages/input.js';
import { clearSweep } from '../../stages/clear.js';
import type { TbfDerived } from './types.js';
import { lambdaBits, TBF_OP, TBF_RESPONSE_QUEUE, tbfMeta } from './params.js';

export function tbfMemoryName(bank: number, which: 'timers' | 'scan' | 'marks'): string {
  return `bank${bank}_${which}`;
}

/**
 * The timestamps T whose age (tp − T) mod (TΩ + 1) is at least `minAge`: the modular interval
 * [lo, hi] = [tp + 1, tp − minAge], which wraps past TΩ when tp ≥ minAge and tp ≠ TΩ. Computed
 * a stage early and registered in the form the compare wants, ~lo and ~hi: "T ≥ lo" and
 * "T > hi" are then each the carry out of one addition of two registers (no inverter ahead of
 * the carry chain).
 */
interface Window {
  nlo: Sig;
  nhi: Sig;
  wrap: Sig;
}

/** The pieces of a stale window over timer values of `c.timerBits` bits, and the membership test. */
function windowMath(m: ModuleBuilder, c: TbfDerived) {
  const tb = c.timerBits;
  return {
    lo: (tp: Sig): Sig => m.mux(tp.eq(c.tOmega), 0, tp.add(1)).trunc(tb),
    hi: (tp: Sig, minAge: number): Sig => m.mux(tp.ge(minAge), tp.sub(minAge), tp.add(c.tOmega + 1 - minAge)).trunc(tb),
    wrap: (tp: Sig, minAge: number): Sig => tp.ge(minAge).and(tp.ne(c.tOmega)),
    /** T in the window: lo ≤ T ≤ hi, or either if it wraps. */
    contains: (T: Sig, w: Window): Sig => {
      const ge = T.ge(w.nlo.not()); // T + ~lo + 1 carries out (the double inversion folds away)
      const le = T.zext(tb + 1)
        .add(w.nhi.zext(tb + 1))
        .bit(tb)
        .not(); // T + ~hi does not carry out
      return m.mux(w.wrap, ge.or(le), ge.and(le));
    },
  };
}

export interface TbfBuildOptions {
  /** Forward the previous cycle's writes (default true); off only to show tests catch it. */
  forwarding?: boolean;
  /** Run the expiry scanner (default true); off only to show tests catch stale timers. */
  scanner?: boolean;
}

export function buildTbf(c: TbfDerived, opts: TbfBuildOptions = {}): Design {
  const forwarding = opts.forwarding ?? true;
  const scanner = opts.scanner ?? true;
  const { k, timerBits: tb, blockSize: B } = c;
  const t = c.timersPerWord;
  const laneBits = Math.log2(t);
  const lw = tb + 1;
  const AW = t * lw;
  const depth = c.wordsPerBank;
  const aBits = Math.log2(depth);
  const bBits = Math.log2(B);
  const LB = lambdaBits(c);
  const INF = 2 ** LB - 1;
  const cBits = bitsFor(k);
  const m = new ModuleBuilder(c.name);
  Object.assign(m.meta, tbfMeta(c));

  const inValid = m.input('in_valid', 1, 'request valid');
  const inOp = m.input('in_op', 2, 'operation: 0 query, 1 insert, 2 test-and-insert, 3 clear');
  const inKey = m.input('in_key', c.keyBits, 'key');
  const inTag = m.input('in_tag', c.tagBits, 'tag, returned with the response');
  const dl = c.decision ? decisionLayout(c) : null;
  const inClass =
    dl && dl.classBits > 0 ? m.input('in_class', dl.classBits, 'prior class of the request (decision unit)') : null;
  const inRatio = dl
    ? m.input('in_ratio', dl.posteriorBits, 'penalty ratio $FP/($FP+$FN) in units of 2^-posteriorBits')
    : null;
  const outReady = m.input('out_ready', 1, 'response consumer ready');

  // ---- A: accept into the input registers (every input goes straight into a register) -------
  // in_ready is a register: room for one more request in the response queue (judged without
  // this cycle's pop, so out_ready does not reach it), no sweep running, and no clear accepted
  // in this cycle or the last (the sweep it starts is not yet visible in sweep_busy).
  // Insert and clear flags are registered already qualified by the accept, so the counters'
  // enables are registers.
  const input = registeredInput(m, {
    valid: inValid,
    op: inOp,
    flags: {
      ins: { codes: [TBF_OP.insert, TBF_OP.testAndInsert], qualified: true },
      query: { codes: [TBF_OP.query, TBF_OP.testAndInsert], qualified: false },
      clear: { codes: [TBF_OP.clear], qualified: true },
    },
    data: { key: inKey, tag: inTag, class: inClass ?? undefined, ratio: inRatio ?? undefined },
    name: 'in',
  });
  const wireAccept = input.fire;
  const { ins: rIns, query: rQuery, clear: rClear } = input.flags;
  const rKey = input.data.key!;
  const rTag = input.data.tag!;
  const rClass = input.data.class ?? null;
  const rRatio = input.data.ratio ?? null;

  // ---- A+1: T+, b, scan pointer -------------------------------------------------------------
  const tplus = m.reg('tplus', tb);
  const bcnt = B > 1 ? m.reg('bcnt', bBits) : null;
  const scanPtr = m.reg('scan_ptr', aBits);
  const sweep = clearSweep(m, { addrBits: aBits, depth });
  // Requests accepted and not yet popped, as a thermometer.
  const occ = occupancy(m, { capacity: TBF_RESPONSE_QUEUE });
  const accept = input.valid;
  const insNow = rIns;
  const clearNow = rClear;
  // T+ advances on the insert that completes a block of B. The next value of T+, "T+ is at the
  // end of its block" and "the sweep writes this cycle" are registers kept beside the counters,
  // so the accept logic only selects between registers.
  const wrapReg = bcnt === null ? null : m.reg('bcnt_wrap', 1); // bcnt = B − 1
  const wrapT = wrapReg ?? m.const(1, 1);
  const tplusInc = m.reg('tplus_inc', tb, { reset: 1 }); // (T+ + 1) mod (TΩ + 1)
  const incAtMax = m.reg('tplus_inc_at_max', 1, { reset: c.tOmega === 1 ? 1 : 0 }); // tplus_inc = TΩ
  const adv = insNow.and(wrapT);
  const tplusAfter = m.mux(adv, tplusInc, tplus);
  tplus.next(m.mux(clearNow, 0, tplusAfter));
  tplusInc.next(m.mux(clearNow, 1, m.mux(adv, m.mux(incAtMax, 0, tplusInc.add(1)), tplusInc)));
  incAtMax.next(m.mux(clearNow, c.tOmega === 1 ? 1 : 0, m.mux(adv, tplusInc.eq(c.tOmega - 1), incAtMax)));
  if (bcnt && wrapReg) {
    bcnt.next(m.mux(clearNow, 0, m.mux(insNow, bcnt.add(1), bcnt)));
    wrapReg.next(m.mux(clearNow, 0, m.mux(insNow, bcnt.eq(B - 2), wrapReg)));
  }
  scanPtr.next(m.mux(clearNow, 0, m.mux(insNow, scanPtr.add(1), scanPtr)));
  const { active: sweepActive } = sweep.connectLookahead(clearNow);
  const fullAfter = occ.fullAfter(wireAccept);
  const clearOnWire = wireAccept.and(decodeOp(inOp, [TBF_OP.clear]));
  input.setReady(fullAfter.or(sweep.busy).or(clearNow).or(clearOnWire));

  // ---- request pipeline registers -----------------------------------------------------------
  const s1 = pipeStage(m, 's1', {
    valid: accept,
    ins: rIns,
    query: rQuery,
    tag: rTag,
    key: rKey,
    tplus,
    tscan: tplusAfter,
    scanAddr: scanPtr,
    b: bcnt ?? undefined,
    cls: rClass ?? undefined,
    ratio: rRatio ?? undefined,
  });
  const win = windowMath(m, c);
  const s1x = {
    ...omit(s1, 'key', 'tscan'),
    tplusW: s1.tplus.add(c.tOmega + 1).trunc(tb),
    scanNlo: win.lo(s1.tscan).not(),
    scanNhi: win.hi(s1.tscan, c.markAge).not(),
    scanWrap: win.wrap(s1.tscan, c.markAge),
  };
  // Expiry at query time: age >= ⌈(w − b)/B⌉ + 1, which is markAge or markAge − 1 (see `low`).
  const rem = c.window % B;
  const low1 = bcnt !== null && rem > 0 ? s1.b!.ge(rem) : null; // ⌈(w−b)/B⌉ = ⌈w/B⌉ − 1
  const tp1 = s1.tplus;
  const sel = (f: (minAge: number) => Sig): Sig =>
    low1 === null ? f(c.markAge) : m.mux(low1, f(c.markAge - 1), f(c.markAge));
  const s2 = pipeStage(m, 's2', {
    ...s1x,
    expNlo: win.lo(tp1).not(),
    expNhi: sel((a) => win.hi(tp1, a)).not(),
    expWrap: sel((a) => win.wrap(tp1, a)),
  });
  const s3 = pipeStage(m, 's3', s2);
  const s4 = pipeStage(m, 's4', omit(s3, 'scanNlo', 'scanNhi', 'scanWrap'));
  const s5 = pipeStage(m, 's5', omit(s4, 'scanAddr'));
  const inWindow = (T: Sig, w: Window): Sig => win.contains(T, w);

  /**
   * (tp − T) mod (TΩ + 1) for T, tp in 0..TΩ, given tpw = (tp + TΩ + 1) mod 2^timerBits (registered
   * a stage early): two subtractions side by side and a select, no chained carries.
   */
  const ageOf = (tp: Sig, tpw: Sig, T: Sig): Sig => m.mux(tp.ge(T), tp.sub(T), tpw.sub(T));

  // Valid inserts in stages A+4 (op modifying) and A+5 (its writes in the write registers).
  const ins4 = s4.valid.and(s4.ins);
  const ins5 = m.pipe(ins4, 1, 'ins5');
  const sweepW = m.pipe(sweepActive, 1, 'sweep_w');
  // The block RAMs' write enable, a register (no LUT before the write enables).
  const wEn = m.pipe(sweepActive.or(ins4), 1, 'w_en');
  const laS5: Sig[] = [];
  const lsS5: Sig[] = [];
  const time5: Sig[] = [];
  for (let j = 0; j < k; j++) {
    m.scope(`bank${j}`, () => {
      const hash = chunkedH3(m, {
        key: s1.key,
        bits: Math.log2(c.timersPerBank),
        seed: c.seed,
        salt: tbfSalt(j),
        name: 'hash',
      });
      const a2 = hash.slice(Math.log2(c.timersPerBank) - 1, laneBits);
      const a3 = m.pipe(a2, 1, 'addr3', { reset: null });
      const a4 = m.pipe(a3, 1, 'addr4', { reset: null });
      const sa2 = s2.scanAddr;
      const sa3 = s3.scanAddr;
      const sa4 = s4.scanAddr;
      const timers = m.memory('timers', { width: AW, depth, readDuringWrite: 'undefined' });
      const scanMem = m.memory('scan', { width: AW, depth, readDuringWrite: 'undefined' });
      // marks: 'old', since its writes are masked and a read that meets a write to the same word
      // keeps the bits not written (the correction in A+4 supplies only the written ones).
      const marks = m.memory('marks', { width: t, depth, mask: true, readDuringWrite: 'old' });
      const rdA = timers.read(a2, s2.valid);
      const rdS = marks.read(a2, s2.valid);
      const rdScan = scanMem.read(sa2, s2.valid.and(s2.ins));

      // What stage A+4 decided, registered: the block RAMs are written from these in A+5 (so no
      // logic but the sweep's select sits before a RAM input); `last*` hold the cycle before's.
      const a5 = m.pipe(a4, 1, 'addr5', { reset: null });
      const sa5 = m.pipe(sa4, 1, 'scan_addr5', { reset: null });
      const opAData = m.reg('op_timers_data', AW, { reset: null });
      const opSMask = m.reg('op_marks_mask', t, { reset: null });
      const opSData = m.reg('op_marks_data', t, { reset: null });
      const lastAData = m.pipe(opAData, 1, 'last_timers_data', { reset: null });
      const lastSMask = m.pipe(opSMask, 1, 'last_marks_mask', { reset: null });
      const lastSData = m.pipe(opSData, 1, 'last_marks_data', { reset: null });

      // Hazards, as registered address matches. An op X reads at the end of A+2. The op two
      // ahead (in A+4 then) writes at the end of X's A+3 and the op three ahead (in A+5) at the
      // end of X's A+2, at X's read edge: both are applied to X's RAM word in A+3. The op one
      // ahead writes at the end of X's A+4 and is applied in A+4.
      const hit = (name: string, write: Sig, writeAddr: Sig, readAddr: Sig): Sig =>
        registeredMatch(m, name, { write, writeAddr, readAddr, reset: false });
      const zA = hit('hit2_timers', ins4, a4, a2);
      const wA = hit('hit3_timers', ins5, a5, a2);
      const zScan = hit('hit2_scan', ins4, a4, sa2);
      const wScan = hit('hit3_scan', ins5, a5, sa2);
      const zS = hit('hit2_marks', ins4, sa4, a2);
      const wS = hit('hit3_marks', ins5, sa5, a2);
      const yA = hit('hit1_timers', ins4, a4, a3);
      const yS = hit('hit1_marks', ins4, sa4, a3);
      // This bank's copy of the scan window (4·t comparators read it). Copies of different banks
      // are registers of different kinds (with or without reset, with or without enable) so
      // synthesis cannot merge them back into one register with a chip-wide fan-out.
      const kind = j % 4;
      const scanWin3: Window = { nlo: s3.scanNlo, nhi: s3.scanNhi, wrap: s3.scanWrap };
      const copy = (x: Sig, name: string): Sig =>
        m.pipe(x, 1, name, { reset: kind & 1 ? 0 : null, ...(kind & 2 ? { en: s3.valid } : {}) });
      const scanWin: Window = {
        nlo: copy(scanWin3.nlo, 'scan_nlo'),
        nhi: copy(scanWin3.nhi, 'scan_nhi'),
        wrap: copy(scanWin3.wrap, 'scan_wrap'),
      };
      const lane3 = laneBits === 0 ? null : m.pipe(hash.slice(laneBits - 1, 0), 1, 'lane3', { reset: null });
      const lane4 = lane3 === null ? null : m.pipe(lane3, 1, 'lane4', { reset: null });
      const oneHot = Array.from({ length: t }, (_, i) =>
        lane3 === null ? m.const(1, 1) : m.pipe(lane3.eq(i), 1, `lane_is${i}`, { reset: null }),
      );
      // Lanes the scanner may mark: an insert's, except those refreshed after the scan word was
      // read and before the scan: this op's own (same word), and the op one ahead's (its insert
      // hits the scan word). Those hold T+ then, never stale; every other lane is as registered
      // in A+3, since the op one ahead writes back the word it read with only its lane changed.
      const allow = Array.from({ length: t }, (_, i) => {
        const own = lane3 === null ? a3.eq(sa3) : a3.eq(sa3).and(lane3.eq(i));
        const ahead = lane4 === null ? ins4.and(a4.eq(sa3)) : ins4.and(a4.eq(sa3)).and(lane4.eq(i));
        return m.pipe(own.or(ahead).not().and(s3.valid).and(s3.ins), 1, `scan_allow${i}`, { reset: null });
      });

      // A+3: the RAM words with the writes of the ops two and three ahead applied, registered.
      const fullFwd = (z: Sig, w: Sig, rd: Sig): Sig => (forwarding ? m.mux(z, opAData, m.mux(w, lastAData, rd)) : rd);
      const word3A = m.pipe(fullFwd(zA, wA, rdA), 1, 'word_timers', { reset: null });
      const word3Scan = m.pipe(fullFwd(zScan, wScan, rdScan), 1, 'word_scan', { reset: null });
      const maskedFwd = (word: Sig, en: Sig, mask: Sig, data: Sig): Sig => {
        const sel = mask.and(m.mux(en, m.const((1n << BigInt(t)) - 1n, t), 0));
        return word.and(sel.not()).or(data.and(sel));
      };
      const word3S = m.pipe(
        forwarding ? maskedFwd(maskedFwd(rdS, wS, lastSMask, lastSData), zS, opSMask, opSData) : rdS,
        1,
        'word_marks',
        { reset: null },
      );

      // A+4: the op one ahead's writes (in the write registers now) applied.
      const curA = forwarding ? m.mux(yA, opAData, word3A) : word3A;
      const curS = forwarding ? maskedFwd(word3S, yS, opSMask, opSData) : word3S;

      const laneA = (w: Sig, i: number): Sig => w.slice((i + 1) * lw - 1, i * lw);
      const lanesA = Array.from({ length: t }, (_, i) => laneA(curA, i));
      const myA = muxTree(m, lanesA, lane4);
      const myLS = muxTree(
        m,
        Array.from({ length: t }, (_, i) => curS.bit(i)),
        lane4,
      );
      laS5.push(m.pipe(myA.bit(tb), 1, 'la', { reset: null }));
      lsS5.push(m.pipe(myLS, 1, 'ls', { reset: null }));
      time5.push(m.pipe(myA.slice(tb - 1, 0), 1, 'time', { reset: null }));

      // Insert: {¬L_S, T+} into its lane (lane i's own L_S when i is the lane); the whole word
      // is written to both copies.
      const newA = m.cat(
        ...lanesA.map((old, i) => m.mux(oneHot[i]!, m.cat(curS.bit(i).not(), s4.tplus), old)).reverse(),
      );

      // Expiry scanner, one word per insert, after the insert: lanes of the scan word whose T is
      // in the stale window, except the lanes refreshed since the read (see `allow`).
      const markBits: Sig[] = [];
      const laBits: Sig[] = [];
      for (let i = 0; i < t; i++) {
        const lane = laneA(word3Scan, i);
        markBits.push(inWindow(lane.slice(tb - 1, 0), scanWin).and(allow[i]!));
        laBits.push(lane.bit(tb));
      }
      const markVec = scanner ? m.cat(...[...markBits].reverse()) : m.const(0, t);
      const laVec = m.cat(...[...laBits].reverse());

      opAData.next(newA);
      // A reset/clear sweep zeroes a word per cycle, one cycle after `sweepActive` like an op.
      // Every RAM input is a register or one LUT (the sweep's select) after registers.
      const ones = m.const((1n << BigInt(t)) - 1n, t);
      opSMask.next(markVec);
      opSData.next(laVec);
      const aAddr = m.pipe(m.mux(sweepActive, sweep.addr, a4), 1, 'w_timers_addr', { reset: null });
      const sAddr = m.pipe(m.mux(sweepActive, sweep.addr, sa4), 1, 'w_marks_addr', { reset: null });
      const aData = m.mux(sweepW, 0, opAData);
      timers.write(aAddr, aData, wEn);
      scanMem.write(aAddr, aData, wEn);
      marks.write(sAddr, m.mux(sweepW, 0, opSData), wEn, m.mux(sweepW, ones, opSMask));
    });
  }

  // ---- A+5: ages and expiry ------------------------------------------------------------------
  const exp6: Sig[] = [];
  const age6: Sig[] = [];
  for (let j = 0; j < k; j++) {
    const age = ageOf(s5.tplus, s5.tplusW, time5[j]!);
    const over = inWindow(time5[j]!, { nlo: s5.expNlo, nhi: s5.expNhi, wrap: s5.expWrap });
    const live = laS5[j]!.xor(lsS5[j]!);
    exp6.push(m.pipe(live.not().or(over), 1, `s6_exp${j}`, { reset: null }));
    age6.push(m.pipe(age.slice(Math.min(tb, LB) - 1, 0).zext(LB), 1, `s6_age${j}`, { reset: null }));
  }
  const s6 = pipeStage(m, 's6', omit(s5, 'tplus', 'tplusW', 'expNlo', 'expNhi', 'expWrap'));

  // ---- A+6: every ordered pair of ages compared; expired timers counted ----------------------
  // ---- A+7: λ = the age of the timers no other exceeds, c = how many there are ---------------
  const pairs = compareAges(m, { ages: age6, expired: exp6, countBits: cBits, prefix: 's7' });
  const s7 = pipeStage(m, 's7', s6);
  const { lambda, count: cnt, anyExpired: anyExp7 } = oldestAge(m, pairs);
  const q7 = s7.query;
  const s8 = pipeStage(m, 's8', {
    valid: s7.valid,
    query: q7,
    tag: s7.tag,
    hit: anyExp7.not().and(q7),
    lambda: m.mux(q7, lambda, 0),
    c: m.mux(q7, cnt, 0),
    b: s7.b,
    cls: s7.cls,
    ratio: s7.ratio,
  });

  // ---- A+8, A+9: decision unit ------------------------------------------------------------
  let last: { valid: Sig; tag: Sig; hit: Sig; lambda: Sig; c: Sig } = s8;
  let decision: Sig | null = null;
  if (dl) {
    const table = decisionTable(c);
    const rom = m.memory('posterior', {
      width: dl.width,
      depth: dl.depth,
      readDuringWrite: 'old',
      init: table.map((v) => BigInt(v)),
    });
    const lam0 = s8.lambda.eq(0);
    const bz = s8.b ? s8.b : m.const(0, 1);
    const wide = LB + bBits + dl.loBits;
    const lamMinus1 = s8.lambda.sub(1).zext(wide);
    const loFromLam = (bBits > 0 ? lamMinus1.shl(bBits) : lamMinus1).or(bz.zext(wide)).trunc(dl.loBits);
    const lo = m.mux(lam0, bz.zext(Math.max(dl.loBits, bz.width)).trunc(dl.loBits), loFromLam);
    const cIdx = m.mux(lam0, 0, s8.c.zext(Math.max(dl.cBits, cBits)).trunc(dl.cBits));
    const parts = [cIdx, lo];
    if (s8.cls) parts.unshift(s8.cls);
    const romAddr = m.cat(...parts);
    const word = rom.read(
      romAddr.width === Math.log2(dl.depth) ? romAddr : romAddr.zext(Math.log2(dl.depth)),
      s8.valid,
    );
    rom.write(0, 0, 0);
    const s9 = pipeStage(m, 's9', {
      valid: s8.valid,
      query: s8.query,
      tag: s8.tag,
      hit: s8.hit,
      lambda: s8.lambda,
      c: s8.c,
      ratio: s8.ratio,
      expired: s8.lambda.eq(INF),
    });
    const pw = m.mux(s9.expired, 0, word);
    decision = pw.ge(s9.ratio!.zext(dl.width)).and(s9.query);
    last = s9;
  }

  // ---- response queue ------------------------------------------------------------------------
  const fields = [last.tag, last.hit, last.lambda, last.c, ...(decision ? [decision] : [])];
  const rq = responseQueue(m, TBF_RESPONSE_QUEUE, last.valid, fields, outReady, { oneHotWrite: true });
  const { outValid, pop } = rq;
  occ.step(wireAccept, pop);

  m.output('in_ready', input.ready, 'request accepted when in_valid and in_ready');
  m.output('out_valid', outValid, 'response available');
  m.output('out_tag', rq.head[0]!, 'tag of the request');
  m.output('out_hit', rq.head[1]!, 'standard answer: no timer of R_x expired (0 for insert, clear)');
  m.output('out_lambda', rq.head[2]!, 'λx: age of the oldest timestamp in R_x; all ones = expired');
  m.output('out_c', rq.head[3]!, 'cx: timers of R_x at age λx (expired: timers expired)');
  if (decision) m.output('out_decision', rq.head[4]!, 'penalty-optimal answer of the decision unit');
  return m.build();
}
