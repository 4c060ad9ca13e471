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
 * Pipeline (a request accepted in cycle A):
 *   A    accept: T+, b and the scan pointer advance on inserts (registered)
 *   A+1  H3 hash per bank (registered)
 *   A+2  block RAM reads: timers[word], marks[word], and scan[scan pointer]
 *   A+3  forward the previous cycle's writes (same word); insert writes its timer; the scanner
 *        (one step per insert, after the insert as in the model) marks the word's timers of age
 *        ≥ ⌈w/B⌉ + 1
 *   A+4  ages (T+ − T) mod (TΩ + 1) and expiry against ⌈(w − b)/B⌉ + 1
 *   A+5  λx = max age, cx = count; hit
 *   A+6  decision unit: posterior ROM read at (class, c-index, lo = (λ−1)B + b) (see
 *        src/model/tbfDecision.ts); A+7 compare with the ratio
 *   Responses enter the response queue at A+6 (A+7 with the decision unit); LATENCY below.
 */
import { ModuleBuilder, type Sig } from '../dsl/module.js';
import type { Design } from '../ir/types.js';
import { tbfSalt } from '../model/tbf.js';
import { decisionLayout, decisionTable } from '../model/tbfDecision.js';
import { bitsFor, muxTree, responseQueue } from './common.js';
import { CLEAR_DELAY } from './config.js';
import type { TbfDerived } from './tbfConfig.js';

export const TBF_OP = { query: 0, insert: 1, testAndInsert: 2, clear: 3 } as const;
export const TBF_RESPONSE_QUEUE = 16;

export function tbfLatency(c: TbfDerived): number {
  return c.decision ? 8 : 7;
}

export function tbfMemoryName(bank: number, which: 'timers' | 'scan' | 'marks'): string {
  return `bank${bank}_${which}`;
}

/** Width of out_lambda; the all-ones value means expired. */
export function lambdaBits(c: TbfDerived): number {
  return bitsFor(c.markAge);
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
  const latency = tbfLatency(c);
  const m = new ModuleBuilder(c.name);
  Object.assign(m.meta, {
    filter: c.filter,
    k,
    timersPerBank: c.timersPerBank,
    timerBits: tb,
    window: c.window,
    blockSize: B,
    padding: c.padding,
    timersPerWord: t,
    tOmega: c.tOmega,
    latency,
    opcodes: TBF_OP,
  });

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

  // ---- accept stage: T+, b, scan pointer ---------------------------------------------------
  const isIns = inOp.eq(TBF_OP.insert).or(inOp.eq(TBF_OP.testAndInsert));
  const isQuery = inOp.eq(TBF_OP.query).or(inOp.eq(TBF_OP.testAndInsert));
  const isClear = inOp.eq(TBF_OP.clear);
  const tplus = m.reg('tplus', tb);
  const bcnt = B > 1 ? m.reg('bcnt', bBits) : null;
  const scanPtr = m.reg('scan_ptr', aBits);
  const sweepBusy = m.reg('sweep_busy', 1, { reset: 1 });
  const dBits = bitsFor(CLEAR_DELAY);
  const sweepDelay = m.reg('sweep_delay', dBits, { reset: CLEAR_DELAY });
  const sweepAddr = m.reg('sweep_addr', aBits);
  const occ = m.reg('occupancy', bitsFor(TBF_RESPONSE_QUEUE));
  const inReady = occ.lt(TBF_RESPONSE_QUEUE).and(sweepBusy.not());
  const accept = inValid.and(inReady);
  const insNow = accept.and(isIns);
  const clearNow = accept.and(isClear);
  const wrapT = bcnt === null ? m.const(1, 1) : bcnt.eq(B - 1);
  const tplusInc = m.mux(tplus.eq(c.tOmega), 0, tplus.add(1));
  const tplusAfter = m.mux(insNow.and(wrapT), tplusInc, tplus);
  tplus.next(m.mux(clearNow, 0, tplusAfter));
  if (bcnt) bcnt.next(m.mux(clearNow, 0, m.mux(insNow, bcnt.add(1), bcnt)));
  scanPtr.next(m.mux(clearNow, 0, m.mux(insNow, scanPtr.add(1), scanPtr)));
  const sweepActive = sweepBusy.and(sweepDelay.eq(0));
  sweepBusy.next(m.mux(clearNow, 1, m.mux(sweepActive.and(sweepAddr.eq(depth - 1)), 0, sweepBusy)));
  sweepDelay.next(m.mux(clearNow, CLEAR_DELAY, m.mux(sweepBusy.and(sweepDelay.ne(0)), sweepDelay.sub(1), sweepDelay)));
  sweepAddr.next(m.mux(clearNow, 0, m.mux(sweepActive, sweepAddr.add(1), sweepAddr)));

  // ---- request pipeline registers -----------------------------------------------------------
  const stage = (n: number, src: Record<string, Sig>): Record<string, Sig> => {
    const out: Record<string, Sig> = {};
    for (const [name, sig] of Object.entries(src)) {
      const control = name === 'valid' || name === 'ins' || name === 'query';
      out[name] = m.pipe(sig, 1, `s${n}_${name}`, control ? {} : { reset: null });
    }
    return out;
  };
  const s0: Record<string, Sig> = {
    valid: accept,
    ins: isIns,
    query: isQuery,
    tag: inTag,
    key: inKey,
    tplus,
    tscan: tplusAfter,
    scanAddr: scanPtr,
  };
  if (bcnt) s0.b = bcnt;
  if (inClass) s0.cls = inClass;
  if (inRatio) s0.ratio = inRatio;
  const s1 = stage(1, s0);
  const omit = (r: Record<string, Sig>, ...names: string[]): Record<string, Sig> =>
    Object.fromEntries(Object.entries(r).filter(([n]) => !names.includes(n)));
  const tOmega1Gap = c.tEps - c.tOmega; // 2^tb − (TΩ + 1)
  /**
   * The timestamps T whose age (tp − T) mod (TΩ + 1) is at least `minAge`: the modular interval
   * [tp + 1, tp − minAge] (it wraps when lo > hi). Computed a stage early and registered, so the
   * scanner and the expiry test only compare T against two registered bounds.
   */
  const staleWindow = (tp: Sig, minAge: number): { lo: Sig; hi: Sig } => ({
    lo: m.mux(tp.eq(c.tOmega), 0, tp.add(1)),
    hi: m.mux(tp.ge(minAge), tp.sub(minAge), tp.add(c.tOmega + 1 - minAge)),
  });
  const s1x: Record<string, Sig> = { ...omit(s1, 'key', 'tscan') };
  const scanWin = staleWindow(s1.tscan!, c.markAge);
  s1x.scanLo = scanWin.lo;
  s1x.scanHi = scanWin.hi;
  s1x.scanWrap = scanWin.lo.gt(scanWin.hi);
  // Expiry at query time: age >= ⌈(w − b)/B⌉ + 1, which is markAge or markAge − 1 (see `low`).
  const rem = c.window % B;
  const low1 = bcnt !== null && rem > 0 ? s1.b!.ge(rem) : null; // ⌈(w−b)/B⌉ = ⌈w/B⌉ − 1
  const expA = staleWindow(s1.tplus!, c.markAge);
  const expB = low1 === null ? expA : staleWindow(s1.tplus!, c.markAge - 1);
  const expLo = low1 === null ? expA.lo : m.mux(low1, expB.lo, expA.lo);
  const expHi = low1 === null ? expA.hi : m.mux(low1, expB.hi, expA.hi);
  s1x.expLo = expLo;
  s1x.expHi = expHi;
  s1x.expWrap = expLo.gt(expHi);
  const s2 = stage(2, s1x);
  const s3 = stage(3, s2);
  const s4base = stage(4, omit(s3, 'scanAddr', 'scanLo', 'scanHi', 'scanWrap'));
  const inWindow = (T: Sig, lo: Sig, hi: Sig, wrap: Sig): Sig =>
    m.mux(wrap, T.ge(lo).or(T.le(hi)), T.ge(lo).and(T.le(hi)));

  /** (tp − T) mod (TΩ + 1) for T, tp in 0..TΩ. */
  const ageOf = (tp: Sig, T: Sig): Sig => {
    const diff = tp.sub(T);
    return m.mux(tp.ge(T), diff, diff.sub(tOmega1Gap));
  };

  const insWrite = s3.valid!.and(s3.ins!);
  const live4: Sig[] = [];
  const time4: Sig[] = [];
  for (let j = 0; j < k; j++) {
    m.scope(`bank${j}`, () => {
      const hash = m.pipe(m.h3(s1.key!, Math.log2(c.timersPerBank), { seed: c.seed, salt: tbfSalt(j) }), 1, 'hash', {
        reset: null,
      });
      const addr2 = hash.slice(Math.log2(c.timersPerBank) - 1, laneBits);
      const timers = m.memory('timers', { width: AW, depth, readDuringWrite: 'undefined' });
      const scanMem = m.memory('scan', { width: AW, depth, readDuringWrite: 'undefined' });
      const marks = m.memory('marks', { width: t, depth, mask: true, readDuringWrite: 'old' });
      const rdA = timers.read(addr2, s2.valid!);
      const rdS = marks.read(addr2, s2.valid!);
      const rdScan = scanMem.read(s2.scanAddr!, s2.valid!.and(s2.ins!));
      const addr3 = m.pipe(addr2, 1, 'addr', { reset: null });
      // Address matches for stage 3, compared a cycle early and registered: the op in stage 2
      // against the op in stage 3 (whose writes the forwarding registers will hold) and against
      // its own scan word.
      const scanAddr3 = s3.scanAddr!;
      const opHitA = m.pipe(addr2.eq(addr3), 1, 'fwd_op_hit', { reset: null });
      const opHitS = m.pipe(addr2.eq(scanAddr3), 1, 'fwd_op_hit_marks', { reset: null });
      const scanHitA = m.pipe(s2.scanAddr!.eq(addr3), 1, 'fwd_scan_hit', { reset: null });
      const sameWord = m.pipe(addr2.eq(s2.scanAddr!), 1, 'scan_same_word', { reset: null });
      const lane3 = laneBits === 0 ? null : m.pipe(hash.slice(laneBits - 1, 0), 1, 'lane', { reset: null });

      // Previous cycle's writes.
      const fAValid = m.reg('fwd_timers_valid', 1);
      const fAData = m.reg('fwd_timers_data', AW, { reset: null });
      const fSValid = m.reg('fwd_marks_valid', 1);
      const fSMask = m.reg('fwd_marks_mask', t, { reset: null });
      const fSData = m.reg('fwd_marks_data', t, { reset: null });
      const wordA = forwarding ? m.mux(fAValid.and(opHitA), fAData, rdA) : rdA;
      const sHit = fSValid.and(opHitS);
      const wordS = forwarding ? m.mux(sHit, rdS.and(fSMask.not()).or(fSData.and(fSMask)), rdS) : rdS;

      const laneA = (w: Sig, i: number): Sig => w.slice((i + 1) * lw - 1, i * lw);
      const lanesA = Array.from({ length: t }, (_, i) => laneA(wordA, i));
      const myA = muxTree(m, lanesA, lane3);
      const myLS = muxTree(
        m,
        Array.from({ length: t }, (_, i) => wordS.bit(i)),
        lane3,
      );
      const myLA = myA.bit(tb);
      live4.push(m.pipe(myLA.xor(myLS), 1, 'live', { reset: null }));
      time4.push(m.pipe(myA.slice(tb - 1, 0), 1, 'time', { reset: null }));

      // Insert: {¬L_S, T+} into the lane; the whole word is written to both copies.
      const newLane = m.cat(myLS.not(), s3.tplus!);
      const newA = m.cat(
        ...lanesA.map((old, i) => (lane3 === null ? newLane : m.mux(lane3.eq(i), newLane, old))).reverse(),
      );
      const sweepAddrHere = sweepAddr;
      const aAddr = m.mux(sweepActive, sweepAddrHere, addr3);
      const aData = m.mux(sweepActive, 0, newA);
      const aEn = sweepActive.or(insWrite);
      timers.write(aAddr, aData, aEn);
      scanMem.write(aAddr, aData, aEn);
      fAValid.next(insWrite);
      fAData.next(newA);

      // Expiry scanner: one word per insert, after the insert (which it sees when in the same word).
      const scanFwd = forwarding ? m.mux(fAValid.and(scanHitA), fAData, rdScan) : rdScan;
      const scanWord = m.mux(sameWord, newA, scanFwd);
      const markBits: Sig[] = [];
      const laBits: Sig[] = [];
      for (let i = 0; i < t; i++) {
        const lane = laneA(scanWord, i);
        markBits.push(inWindow(lane.slice(tb - 1, 0), s3.scanLo!, s3.scanHi!, s3.scanWrap!));
        laBits.push(lane.bit(tb));
      }
      const markVec = m.cat(...[...markBits].reverse());
      const laVec = m.cat(...[...laBits].reverse());
      const scanWrite = scanner ? insWrite.and(markVec.any()) : m.const(0, 1);
      const ones = m.const((1n << BigInt(t)) - 1n, t);
      marks.write(
        m.mux(sweepActive, sweepAddrHere, scanAddr3),
        m.mux(sweepActive, 0, laVec),
        sweepActive.or(scanWrite),
        m.mux(sweepActive, ones, markVec),
      );
      fSValid.next(scanWrite);
      fSMask.next(markVec);
      fSData.next(laVec);
    });
  }

  // ---- A+4: ages and expiry ------------------------------------------------------------------
  const s4 = s4base;
  const exp5: Sig[] = [];
  const age5: Sig[] = [];
  for (let j = 0; j < k; j++) {
    const age = ageOf(s4.tplus!, time4[j]!);
    const over = inWindow(time4[j]!, s4.expLo!, s4.expHi!, s4.expWrap!);
    exp5.push(m.pipe(live4[j]!.not().or(over), 1, `s5_exp${j}`, { reset: null }));
    age5.push(m.pipe(age.slice(Math.min(tb, LB) - 1, 0).zext(LB), 1, `s5_age${j}`, { reset: null }));
  }
  const s5 = stage(5, omit(s4, 'tplus', 'expLo', 'expHi', 'expWrap'));

  // ---- A+5: λ = max age, c = how many hold it ---------------------------------------------
  let level = age5;
  while (level.length > 1) {
    const next: Sig[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const a = level[i]!;
      const bb = level[i + 1];
      next.push(bb === undefined ? a : m.mux(bb.gt(a), bb, a));
    }
    level = next;
  }
  const maxAge = level[0]!;
  const count = (bits: Sig[]): Sig => bits.map((x) => x.zext(cBits)).reduce((x, y) => x.add(y));
  const anyExp = exp5.reduce((x, y) => x.or(y));
  const lambda = m.mux(anyExp, INF, maxAge);
  const cnt = m.mux(anyExp, count(exp5), count(age5.map((a) => a.eq(maxAge))));
  const q5 = s5.query!;
  const s6in: Record<string, Sig> = {
    valid: s5.valid!,
    query: q5,
    tag: s5.tag!,
    hit: anyExp.not().and(q5),
    lambda: m.mux(q5, lambda, 0),
    c: m.mux(q5, cnt, 0),
  };
  if (s5.b) s6in.b = s5.b;
  if (s5.cls) s6in.cls = s5.cls;
  if (s5.ratio) s6in.ratio = s5.ratio;
  const s6 = stage(6, s6in);

  // ---- A+6, A+7: decision unit ------------------------------------------------------------
  let last = s6;
  let decision: Sig | null = null;
  if (dl) {
    const table = decisionTable(c);
    const rom = m.memory('posterior', {
      width: dl.width,
      depth: dl.depth,
      readDuringWrite: 'old',
      init: table.map((v) => BigInt(v)),
    });
    const lam0 = s6.lambda!.eq(0);
    const bz = s6.b ? s6.b : m.const(0, 1);
    const wide = LB + bBits + dl.loBits;
    const lamMinus1 = s6.lambda!.sub(1).zext(wide);
    const loFromLam = (bBits > 0 ? lamMinus1.shl(bBits) : lamMinus1).or(bz.zext(wide)).trunc(dl.loBits);
    const lo = m.mux(lam0, bz.zext(Math.max(dl.loBits, bz.width)).trunc(dl.loBits), loFromLam);
    const cIdx = m.mux(lam0, 0, s6.c!.zext(Math.max(dl.cBits, cBits)).trunc(dl.cBits));
    const parts = [cIdx, lo];
    if (s6.cls) parts.unshift(s6.cls);
    const romAddr = m.cat(...parts);
    const word = rom.read(
      romAddr.width === Math.log2(dl.depth) ? romAddr : romAddr.zext(Math.log2(dl.depth)),
      s6.valid!,
    );
    rom.write(0, 0, 0);
    const s7in: Record<string, Sig> = {
      valid: s6.valid!,
      query: s6.query!,
      tag: s6.tag!,
      hit: s6.hit!,
      lambda: s6.lambda!,
      c: s6.c!,
      ratio: s6.ratio!,
      expired: s6.lambda!.eq(INF),
    };
    const s7 = stage(7, s7in);
    const pw = m.mux(s7.expired!, 0, word);
    decision = pw.ge(s7.ratio!.zext(dl.width)).and(s7.query!);
    last = s7;
  }

  // ---- response queue ------------------------------------------------------------------------
  const fields = [last.tag!, last.hit!, last.lambda!, last.c!, ...(decision ? [decision] : [])];
  const rq = responseQueue(m, TBF_RESPONSE_QUEUE, last.valid!, fields, outReady);
  const { outValid, pop } = rq;
  occ.next(m.mux(accept.and(pop.not()), occ.add(1), m.mux(pop.and(accept.not()), occ.sub(1), occ)));

  m.output('in_ready', inReady, 'request accepted when in_valid and in_ready');
  m.output('out_valid', outValid, 'response available');
  m.output('out_tag', rq.head[0]!, 'tag of the request');
  m.output('out_hit', rq.head[1]!, 'standard answer: no timer of R_x expired (0 for insert, clear)');
  m.output('out_lambda', rq.head[2]!, 'λx: age of the oldest timestamp in R_x; all ones = expired');
  m.output('out_c', rq.head[3]!, 'cx: timers of R_x at age λx (expired: timers expired)');
  if (decision) m.output('out_decision', rq.head[4]!, 'penalty-optimal answer of the decision unit');
  return m.build();
}
