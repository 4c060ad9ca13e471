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
 *
 * A shard of an N-lane filter (`laneTime`, src/families/tbf/lanes.ts): no time counters — the op's
 * T+ and b come with the request (in_tplus, in_bcnt advanced by in_before inserts, in A+1), the
 * scanner steps when in_scan says so (with any op, at in_tplus advanced by in_scan_at; its own lane
 * excluded only when the op inserts), and the answer leaves from the last stage with no response
 * queue and no out_ready: LATENCY 9. A shard of a merging filter (`laneTime.merge`) also takes
 * in_last: its insert writes T+ advanced by in_last inserts (the last insert of the request's
 * group of identical keys), its answer is as of in_before.
 *
 * Composition (src/stages/): registeredInput (A), clearSweep in its 'lookahead' form and
 * occupancy (A+1), pipeStage (every stage), chunkedH3 (A+2), registeredMatch for the hazards
 * (A+3), compareAges and oldestAge (A+7, A+8), responseQueue. TBF-only and kept here: the time
 * counters, the stale windows, the three-RAM timer bank with its forwarding (three writes in
 * flight, masked marks) and the scanner, the decision unit. As in apbf/rtl.ts, the order of the
 * DSL calls is the netlist's: the call sites keep the order the presets' Verilog has.
 */
import { ModuleBuilder, type Sig } from '../../dsl/module.js';
import type { Design } from '../../ir/types.js';
import { tbfSalt } from './model.js';
import { decisionLayout, decisionTable } from './decision.js';
import { advanceTime, bitsFor, muxTree } from '../../stages/primitives.js';
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

/** Timer arithmetic modulo TΩ + 1: the stale-window bounds, the window test and the age. */
interface TimerMath {
  lo(tp: Sig): Sig;
  hi(tp: Sig, minAge: number): Sig;
  wrap(tp: Sig, minAge: number): Sig;
  /** T in the window: lo ≤ T ≤ hi, or either if it wraps. */
  contains(T: Sig, w: Window): Sig;
  /**
   * (tp − T) mod (TΩ + 1) for T, tp in 0..TΩ, given tpw = (tp + TΩ + 1) mod 2^timerBits
   * (registered a stage early): two subtractions side by side and a select, no chained carries.
   */
  age(tp: Sig, tpw: Sig, T: Sig): Sig;
}

function timerMath(m: ModuleBuilder, c: TbfDerived): TimerMath {
  const tb = c.timerBits;
  return {
    lo: (tp) => m.mux(tp.eq(c.tOmega), 0, tp.add(1)).trunc(tb),
    hi: (tp, minAge) => m.mux(tp.ge(minAge), tp.sub(minAge), tp.add(c.tOmega + 1 - minAge)).trunc(tb),
    wrap: (tp, minAge) => tp.ge(minAge).and(tp.ne(c.tOmega)),
    contains: (T, w) => {
      const ge = T.ge(w.nlo.not()); // T + ~lo + 1 carries out (the double inversion folds away)
      const le = T.zext(tb + 1)
        .add(w.nhi.zext(tb + 1))
        .bit(tb)
        .not(); // T + ~hi does not carry out
      return m.mux(w.wrap, ge.or(le), ge.and(le));
    },
    age: (tp, tpw, T) => m.mux(tp.ge(T), tp.sub(T), tpw.sub(T)),
  };
}

export interface TbfBuildOptions {
  /** Forward the previous cycle's writes (default true); off only to show tests catch it. */
  forwarding?: boolean;
  /** Run the expiry scanner (default true); off only to show tests catch stale timers. */
  scanner?: boolean;
}

/** Sizes derived from the config. */
interface Dims {
  /** Timers per block RAM word, log2 of it, bits per timer ({L_A, T}), word width. */
  t: number;
  laneBits: number;
  lw: number;
  AW: number;
  depth: number;
  aBits: number;
  bBits: number;
  /** Width of λ; all ones is "expired". */
  LB: number;
  /** Width of c (0..k). */
  cBits: number;
}

function dims(c: TbfDerived): Dims {
  const t = c.timersPerWord;
  const lw = c.timerBits + 1;
  const depth = c.wordsPerBank;
  return {
    t,
    laneBits: Math.log2(t),
    lw,
    AW: t * lw,
    depth,
    aBits: Math.log2(depth),
    bBits: Math.log2(c.blockSize),
    LB: lambdaBits(c),
    cBits: bitsFor(c.k),
  };
}

type TbfPorts = ReturnType<typeof tbfPorts>;

/**
 * A: accept into the input registers (every input goes straight into a register). Insert and
 * clear flags are registered already qualified by the accept, so the counters' enables are
 * registers.
 */
function tbfInput(m: ModuleBuilder, io: TbfPorts) {
  return registeredInput(m, {
    valid: io.valid,
    op: io.op,
    flags: {
      ins: { codes: [TBF_OP.insert, TBF_OP.testAndInsert], qualified: true },
      query: { codes: [TBF_OP.query, TBF_OP.testAndInsert], qualified: false },
      clear: { codes: [TBF_OP.clear], qualified: true },
    },
    data: {
      key: io.key,
      tag: io.tag,
      class: io.cls ?? undefined,
      ratio: io.ratio ?? undefined,
      ...(io.time ? { ...io.time, bcnt: io.time.bcnt ?? undefined } : {}),
    },
    name: 'in',
  });
}

type TbfInput = ReturnType<typeof tbfInput>;

/**
 * A+1: T+, b and the scan pointer (on lanes the time of the op and of the scan come with the
 * request: laneTimes), the sweep, and in_ready — a register: room for one more request in the
 * response queue (judged without this cycle's pop, so out_ready does not reach it), no sweep
 * running, and no clear accepted in this cycle or the last (the sweep it starts is not yet
 * visible in sweep_busy).
 */
function timeAndSweep(m: ModuleBuilder, c: TbfDerived, d: Dims, io: TbfPorts, input: TbfInput) {
  const { ins, clear } = input.flags;
  const lanes = io.time ? laneTimes(m, c, d, input.valid, input.data, clear) : null;
  const own = lanes ? null : timeCounters(m, c, d);
  const counters = lanes ?? own!;
  const sweep = clearSweep(m, { addrBits: d.aBits, depth: d.depth });
  // Requests accepted and not yet popped, as a thermometer (none on lanes: no response queue).
  const occ = lanes ? null : occupancy(m, { capacity: TBF_RESPONSE_QUEUE });
  const tplusAfter = lanes ? lanes.tscan : own!.connect(ins, clear);
  const { active: sweepActive } = sweep.connectLookahead(clear);
  const fullAfter = occ ? occ.fullAfter(input.fire) : null;
  const clearOnWire = input.fire.and(decodeOp(io.op, [TBF_OP.clear]));
  input.setReady((fullAfter ? fullAfter.or(sweep.busy) : sweep.busy).or(clear).or(clearOnWire));
  return { lanes, counters, tplusAfter, occ, sweepActive, sweepAddr: sweep.addr };
}

type TimeAndSweep = ReturnType<typeof timeAndSweep>;

/** A+1..A+5: the request pipeline registers, with the stale windows formed in A+2. */
function requestStages(m: ModuleBuilder, c: TbfDerived, input: TbfInput, t: TimeAndSweep) {
  const { ins, query } = input.flags;
  const s1 = pipeStage(m, 's1', {
    valid: input.valid,
    ins,
    query,
    tag: input.data.tag,
    key: input.data.key,
    tplus: t.counters.tplus,
    tlast: t.lanes?.tlast,
    tscan: t.tplusAfter,
    scanAddr: t.counters.scanPtr,
    b: t.counters.bcnt ?? undefined,
    cls: input.data.class,
    ratio: input.data.ratio,
    scan: t.lanes?.scan,
  });
  const tm = timerMath(m, c);
  const s2 = windowStage(m, c, tm, s1);
  const s3 = pipeStage(m, 's3', s2);
  const s4 = pipeStage(m, 's4', omit(s3, 'scanNlo', 'scanNhi', 'scanWrap'));
  const s5 = pipeStage(m, 's5', omit(s4, 'scanAddr', 'scan', 'tlast'));
  return { tm, s1, s2, s3, s4, s5 };
}

/** A+2..A+6: the write enables shared by the banks, then the k timer banks. */
function timerBanks(
  m: ModuleBuilder,
  c: TbfDerived,
  d: Dims,
  opts: TbfBuildOptions,
  st: ReturnType<typeof requestStages>,
  t: TimeAndSweep,
) {
  const { s4 } = st;
  const { sweepActive } = t;
  // Valid inserts in stages A+4 (op modifying) and A+5 (its writes in the write registers).
  const ins4 = s4.valid.and(s4.ins);
  const ins5 = m.pipe(ins4, 1, 'ins5');
  const sweepW = m.pipe(sweepActive, 1, 'sweep_w');
  // The block RAMs' write enable, a register (no LUT before the write enables).
  const wEn = m.pipe(sweepActive.or(ins4), 1, 'w_en');
  // The scanner's steps in A+4 and A+5 (the marks they write): on one lane, the inserts'.
  const scan4 = s4.scan ? s4.valid.and(s4.scan) : ins4;
  const scan5 = s4.scan ? m.pipe(scan4, 1, 'scan5') : ins5;
  const wEnMarks = s4.scan ? m.pipe(sweepActive.or(scan4), 1, 'w_en_marks') : wEn;
  const x: BankContext = {
    c,
    d,
    tm: st.tm,
    forwarding: opts.forwarding ?? true,
    scanner: opts.scanner ?? true,
    key: st.s1.key,
    s2: st.s2,
    s3: st.s3,
    s4,
    ins4,
    ins5,
    scan4,
    scan5,
    sweep: { active: sweepActive, addr: t.sweepAddr, write: sweepW },
    wEn,
    wEnMarks,
  };
  return Array.from({ length: c.k }, (_, j) => m.scope(`bank${j}`, () => timerBank(m, x, j)));
}

/**
 * A+5: ages and expiry; A+6: every ordered pair of ages compared, expired timers counted; A+7:
 * λ = the age of the timers no other exceeds, c = how many there are, registered into s8.
 */
function oldestTimers(
  m: ModuleBuilder,
  c: TbfDerived,
  d: Dims,
  st: ReturnType<typeof requestStages>,
  banks: ReturnType<typeof timerBank>[],
) {
  const { age6, exp6 } = agesAndExpiry(m, c, d, st.tm, st.s5, banks);
  const s6 = pipeStage(m, 's6', omit(st.s5, 'tplus', 'tplusW', 'expNlo', 'expNhi', 'expWrap'));
  const pairs = compareAges(m, { ages: age6, expired: exp6, countBits: d.cBits, prefix: 's7' });
  const s7 = pipeStage(m, 's7', s6);
  const { lambda, count, anyExpired } = oldestAge(m, pairs);
  const q7 = s7.query;
  return pipeStage(m, 's8', {
    valid: s7.valid,
    query: q7,
    tag: s7.tag,
    hit: anyExpired.not().and(q7),
    lambda: m.mux(q7, lambda, 0),
    c: m.mux(q7, count, 0),
    b: s7.b,
    cls: s7.cls,
    ratio: s7.ratio,
  });
}

/** The outputs: a lanes shard answers straight from the last stage, else the response queue. */
function tbfResponse(
  m: ModuleBuilder,
  io: TbfPorts,
  input: TbfInput,
  occ: TimeAndSweep['occ'],
  last: { valid: Sig; tag: Sig; hit: Sig; lambda: Sig; c: Sig },
  decision: Sig | null,
): void {
  if (!occ) {
    m.output('in_ready', input.ready, 'request accepted when in_valid and in_ready');
    m.output('out_valid', last.valid, 'response valid (taken as it comes: no out_ready)');
    m.output('out_tag', last.tag, 'tag of the request');
    m.output('out_hit', last.hit, 'standard answer: no timer of R_x expired (0 for insert, clear)');
    m.output('out_lambda', last.lambda, 'λx: age of the oldest timestamp in R_x; all ones = expired');
    m.output('out_c', last.c, 'cx: timers of R_x at age λx (expired: timers expired)');
    return;
  }
  const fields = [last.tag, last.hit, last.lambda, last.c, ...(decision ? [decision] : [])];
  const rq = responseQueue(m, TBF_RESPONSE_QUEUE, last.valid, fields, io.outReady!, { oneHotWrite: true });
  occ.step(input.fire, rq.pop);

  m.output('in_ready', input.ready, 'request accepted when in_valid and in_ready');
  m.output('out_valid', rq.outValid, 'response available');
  m.output('out_tag', rq.head[0]!, 'tag of the request');
  m.output('out_hit', rq.head[1]!, 'standard answer: no timer of R_x expired (0 for insert, clear)');
  m.output('out_lambda', rq.head[2]!, 'λx: age of the oldest timestamp in R_x; all ones = expired');
  m.output('out_c', rq.head[3]!, 'cx: timers of R_x at age λx (expired: timers expired)');
  if (decision) m.output('out_decision', rq.head[4]!, 'penalty-optimal answer of the decision unit');
}

export function buildTbf(c: TbfDerived, opts: TbfBuildOptions = {}): Design {
  const d = dims(c);
  const m = new ModuleBuilder(c.name);
  Object.assign(m.meta, tbfMeta(c));
  const dl = c.decision ? decisionLayout(c) : null;
  const io = tbfPorts(m, c, dl);
  const input = tbfInput(m, io);
  const t = timeAndSweep(m, c, d, io, input);
  const st = requestStages(m, c, input, t);
  const banks = timerBanks(m, c, d, opts, st, t);
  const s8 = oldestTimers(m, c, d, st, banks);
  // A+8, A+9: the decision unit.
  const { last, decision } = dl ? decisionUnit(m, c, d, dl, s8) : { last: s8, decision: null };
  tbfResponse(m, io, input, t.occ, last, decision);
  return m.build();
}

function tbfPorts(m: ModuleBuilder, c: TbfDerived, dl: ReturnType<typeof decisionLayout> | null) {
  const valid = m.input('in_valid', 1, 'request valid');
  const op = m.input('in_op', 2, 'operation: 0 query, 1 insert, 2 test-and-insert, 3 clear');
  const key = m.input('in_key', c.keyBits, 'key');
  const tag = m.input('in_tag', c.tagBits, 'tag, returned with the response');
  const cls =
    dl && dl.classBits > 0 ? m.input('in_class', dl.classBits, 'prior class of the request (decision unit)') : null;
  const ratio = dl
    ? m.input('in_ratio', dl.posteriorBits, 'penalty ratio $FP/($FP+$FN) in units of 2^-posteriorBits')
    : null;
  const lt = c.laneTime;
  const outReady = lt ? null : m.input('out_ready', 1, 'response consumer ready');
  // in_before and in_scan_at count up to 2·lanes inserts (the dispatcher's time lags a cycle).
  const cw = lt ? bitsFor(2 * lt.lanes) : 0;
  const time = lt
    ? {
        tplus: m.input('in_tplus', c.timerBits, 'lanes: T+ at the start of the cycle before the request'),
        bcnt:
          c.blockSize > 1
            ? m.input('in_bcnt', Math.log2(c.blockSize), 'lanes: b at the start of the cycle before the request')
            : null,
        before: m.input('in_before', cw, 'lanes: inserts from that time to the request'),
        scan: m.input('in_scan', 1, 'lanes: one expiry-scan step after the request'),
        scanAt: m.input('in_scan_at', cw, "lanes: the scan step's time, in inserts after in_tplus/in_bcnt"),
        last: lt.merge
          ? m.input('in_last', cw, "lanes (merging): the time the insert writes, its group's last insert's")
          : undefined,
      }
    : null;
  return { valid, op, key, tag, cls, ratio, outReady, time };
}

/**
 * A shard of an N-lane filter: the op's T+ and b, (in_tplus, in_bcnt) advanced by in_before
 * inserts, and the scan's T+, advanced by in_scan_at, registered into A+1 beside the scan pointer
 * (one word per scan step). Both advances are one mixed-radix addition: b + n splits into the new
 * b and the steps of T+, which wraps once at most (n ≤ 2·lanes inserts are at most TΩ + 1 steps:
 * src/families/tbf/lanes.ts's bound on lanes).
 */
function laneTimes(
  m: ModuleBuilder,
  c: TbfDerived,
  d: Dims,
  valid: Sig,
  r: { tplus?: Sig; bcnt?: Sig; before?: Sig; scan?: Sig; scanAt?: Sig; last?: Sig },
  clear: Sig,
) {
  // in_before, in_last and in_scan_at count at most 2·lanes inserts (see the ports).
  const advance = (n: Sig) =>
    advanceTime(m, { t: r.tplus!, b: r.bcnt ?? null, n, wrap: c.tOmega + 1, nMax: 2 * c.laneTime!.lanes });
  const op = advance(r.before!);
  // Merging: the group's answers are as of its first insert's time (in_before), its insert writes
  // the last one's (in_last: every insert of the group in turn leaves the last one's timers).
  const tlast = r.last ? advance(r.last).t : undefined;
  const scan = valid.and(r.scan!);
  const scanPtr = m.reg('scan_ptr', d.aBits);
  scanPtr.next(m.mux(clear, 0, m.mux(scan, scanPtr.add(1), scanPtr)));
  return { tplus: op.t, bcnt: op.b, tscan: advance(r.scanAt!).t, scanPtr, scan, tlast };
}

/**
 * T+ (advanced by the insert that completes a block of B), b (inserts into the current block)
 * and the scan pointer (one word per insert). `connect` closes them and returns T+ after this
 * cycle's insert (the scanner's time).
 */
function timeCounters(m: ModuleBuilder, c: TbfDerived, d: Dims) {
  const tb = c.timerBits;
  const tplus = m.reg('tplus', tb);
  const bcnt = c.blockSize > 1 ? m.reg('bcnt', d.bBits) : null;
  const scanPtr = m.reg('scan_ptr', d.aBits);
  const connect = (ins: Sig, clear: Sig): Sig => {
    // The next value of T+, "T+ is at the end of its block" and "the sweep writes this cycle"
    // are registers kept beside the counters, so the accept logic only selects between registers.
    const wrapReg = bcnt === null ? null : m.reg('bcnt_wrap', 1); // bcnt = B − 1
    const wrapT = wrapReg ?? m.const(1, 1);
    const tplusInc = m.reg('tplus_inc', tb, { reset: 1 }); // (T+ + 1) mod (TΩ + 1)
    const incAtMax = m.reg('tplus_inc_at_max', 1, { reset: c.tOmega === 1 ? 1 : 0 }); // tplus_inc = TΩ
    const adv = ins.and(wrapT);
    const tplusAfter = m.mux(adv, tplusInc, tplus);
    tplus.next(m.mux(clear, 0, tplusAfter));
    tplusInc.next(m.mux(clear, 1, m.mux(adv, m.mux(incAtMax, 0, tplusInc.add(1)), tplusInc)));
    incAtMax.next(m.mux(clear, c.tOmega === 1 ? 1 : 0, m.mux(adv, tplusInc.eq(c.tOmega - 1), incAtMax)));
    if (bcnt && wrapReg) {
      bcnt.next(m.mux(clear, 0, m.mux(ins, bcnt.add(1), bcnt)));
      wrapReg.next(m.mux(clear, 0, m.mux(ins, bcnt.eq(c.blockSize - 2), wrapReg)));
    }
    scanPtr.next(m.mux(clear, 0, m.mux(ins, scanPtr.add(1), scanPtr)));
    return tplusAfter;
  };
  return { tplus, bcnt, scanPtr, connect };
}

/**
 * Stage A+2's registers: the request's fields, T+ + TΩ + 1 (for the age), and the two stale
 * windows as ~lo, ~hi, wrap: the scanner's (age ≥ ⌈w/B⌉ + 1 at the scan time) and the query's.
 */
function windowStage<T extends { tplus: Sig; tscan: Sig; key: Sig; b: Sig | undefined }>(
  m: ModuleBuilder,
  c: TbfDerived,
  tm: TimerMath,
  s1: T,
) {
  const s1x = {
    ...omit(s1, 'key', 'tscan'),
    tplusW: s1.tplus.add(c.tOmega + 1).trunc(c.timerBits),
    scanNlo: tm.lo(s1.tscan).not(),
    scanNhi: tm.hi(s1.tscan, c.markAge).not(),
    scanWrap: tm.wrap(s1.tscan, c.markAge),
  };
  // Expiry at query time: age >= ⌈(w − b)/B⌉ + 1, which is markAge or markAge − 1 (see `low`).
  const rem = c.window % c.blockSize;
  const low1 = s1.b !== undefined && rem > 0 ? s1.b.ge(rem) : null; // ⌈(w−b)/B⌉ = ⌈w/B⌉ − 1
  const tp1 = s1.tplus;
  const sel = (f: (minAge: number) => Sig): Sig =>
    low1 === null ? f(c.markAge) : m.mux(low1, f(c.markAge - 1), f(c.markAge));
  return pipeStage(m, 's2', {
    ...s1x,
    expNlo: tm.lo(tp1).not(),
    expNhi: sel((a) => tm.hi(tp1, a)).not(),
    expWrap: sel((a) => tm.wrap(tp1, a)),
  });
}

/** What every timer bank shares. */
interface BankContext {
  c: TbfDerived;
  d: Dims;
  tm: TimerMath;
  forwarding: boolean;
  scanner: boolean;
  key: Sig;
  /** `scan` (on lanes): a scan step with the op; on one lane every insert steps. */
  s2: { valid: Sig; ins: Sig; scanAddr: Sig; scan?: Sig };
  s3: { valid: Sig; ins: Sig; scanAddr: Sig; scanNlo: Sig; scanNhi: Sig; scanWrap: Sig; scan?: Sig };
  /** tlast: the time an insert writes, when it differs from the op's (merging on lanes). */
  s4: { scanAddr: Sig; tplus: Sig; tlast?: Sig };
  /** Valid inserts in A+4 and A+5. */
  ins4: Sig;
  ins5: Sig;
  /** Valid scan steps in A+4 and A+5 (ins4 and ins5 on one lane). */
  scan4: Sig;
  scan5: Sig;
  /** The sweep's word this cycle; `write`: it writes (a cycle later, like an op). */
  sweep: { active: Sig; addr: Sig; write: Sig };
  wEn: Sig;
  /** The marks' write enable (wEn on one lane). */
  wEnMarks: Sig;
}

/** A bank's timer of the op in A+5: {L_A, T} and L_S, registered. */
interface BankOut {
  la: Sig;
  ls: Sig;
  time: Sig;
}

/**
 * One timer bank: the H3 hash picks a word and a lane; `timers` and `scan` (two copies of the
 * {L_A, T} words, one read by the op stream, one by the scanner) and `marks` (L_S per timer,
 * written by the scanner) are read in A+2, corrected by forwarding in A+3 and A+4, and written
 * in A+5 from registers.
 */
function timerBank(m: ModuleBuilder, x: BankContext, j: number): BankOut {
  const { c, d } = x;
  const hashBits = Math.log2(c.timersPerBank);
  const hash = chunkedH3(m, { key: x.key, bits: hashBits, seed: c.seed, salt: tbfSalt(j), name: 'hash' });
  const a2 = hash.slice(hashBits - 1, d.laneBits);
  const a3 = m.pipe(a2, 1, 'addr3', { reset: null });
  const a4 = m.pipe(a3, 1, 'addr4', { reset: null });
  const timers = m.memory('timers', { width: d.AW, depth: d.depth, readDuringWrite: 'undefined' });
  const scanMem = m.memory('scan', { width: d.AW, depth: d.depth, readDuringWrite: 'undefined' });
  // marks: 'old', since its writes are masked and a read that meets a write to the same word
  // keeps the bits not written (the correction in A+4 supplies only the written ones).
  const marks = m.memory('marks', { width: d.t, depth: d.depth, mask: true, readDuringWrite: 'old' });
  const rd = {
    timers: timers.read(a2, x.s2.valid),
    marks: marks.read(a2, x.s2.valid),
    scan: scanMem.read(x.s2.scanAddr, x.s2.valid.and(x.s2.scan ?? x.s2.ins)),
  };
  const w = writeRegisters(m, x, a4);
  const hz = hazards(m, x, w, { a2, a3, a4 });
  const lanes = scanLanes(m, x, j, hash, a3, a4);
  const words = forwardedWords(m, x, rd, w, hz);
  const own = selectLane(m, x, words, lanes.lane4);
  const wr = newWords(m, x, words, lanes, own.lanes);
  w.opTimers.next(wr.timers);
  // A reset/clear sweep zeroes a word per cycle, one cycle after `sweep.active` like an op.
  // Every RAM input is a register or one LUT (the sweep's select) after registers.
  const ones = m.const((1n << BigInt(d.t)) - 1n, d.t);
  w.opMarksMask.next(wr.marksMask);
  w.opMarksData.next(wr.marksData);
  const aAddr = m.pipe(m.mux(x.sweep.active, x.sweep.addr, a4), 1, 'w_timers_addr', { reset: null });
  const sAddr = m.pipe(m.mux(x.sweep.active, x.sweep.addr, x.s4.scanAddr), 1, 'w_marks_addr', { reset: null });
  const aData = m.mux(x.sweep.write, 0, w.opTimers);
  timers.write(aAddr, aData, x.wEn);
  scanMem.write(aAddr, aData, x.wEn);
  marks.write(sAddr, m.mux(x.sweep.write, 0, w.opMarksData), x.wEnMarks, m.mux(x.sweep.write, ones, w.opMarksMask));
  return { la: own.la, ls: own.ls, time: own.time };
}

/**
 * What stage A+4 decided, registered: the block RAMs are written from these in A+5 (so no
 * logic but the sweep's select sits before a RAM input); `last*` hold the cycle before's.
 */
function writeRegisters(m: ModuleBuilder, x: BankContext, a4: Sig) {
  const a5 = m.pipe(a4, 1, 'addr5', { reset: null });
  const sa5 = m.pipe(x.s4.scanAddr, 1, 'scan_addr5', { reset: null });
  const opTimers = m.reg('op_timers_data', x.d.AW, { reset: null });
  const opMarksMask = m.reg('op_marks_mask', x.d.t, { reset: null });
  const opMarksData = m.reg('op_marks_data', x.d.t, { reset: null });
  const lastTimers = m.pipe(opTimers, 1, 'last_timers_data', { reset: null });
  const lastMarksMask = m.pipe(opMarksMask, 1, 'last_marks_mask', { reset: null });
  const lastMarksData = m.pipe(opMarksData, 1, 'last_marks_data', { reset: null });
  return { a5, sa5, opTimers, opMarksMask, opMarksData, lastTimers, lastMarksMask, lastMarksData };
}

/**
 * Hazards, as registered address matches. An op X reads at the end of A+2. The op two ahead (in
 * A+4 then) writes at the end of X's A+3 and the op three ahead (in A+5) at the end of X's A+2,
 * at X's read edge: both are applied to X's RAM word in A+3. The op one ahead writes at the end
 * of X's A+4 and is applied in A+4. (hitN: the op N ahead wrote the word.)
 */
function hazards(m: ModuleBuilder, x: BankContext, w: { a5: Sig; sa5: Sig }, a: { a2: Sig; a3: Sig; a4: Sig }) {
  const hit = (name: string, write: Sig, writeAddr: Sig, readAddr: Sig): Sig =>
    registeredMatch(m, name, { write, writeAddr, readAddr, reset: false });
  const sa2 = x.s2.scanAddr;
  const sa4 = x.s4.scanAddr;
  return {
    zA: hit('hit2_timers', x.ins4, a.a4, a.a2),
    wA: hit('hit3_timers', x.ins5, w.a5, a.a2),
    zScan: hit('hit2_scan', x.ins4, a.a4, sa2),
    wScan: hit('hit3_scan', x.ins5, w.a5, sa2),
    zS: hit('hit2_marks', x.scan4, sa4, a.a2),
    wS: hit('hit3_marks', x.scan5, w.sa5, a.a2),
    yA: hit('hit1_timers', x.ins4, a.a4, a.a3),
    yS: hit('hit1_marks', x.scan4, sa4, a.a3),
  };
}

/** The bank's copy of the scan window, the op's lane (A+3, A+4) and the lanes the scanner may mark. */
function scanLanes(m: ModuleBuilder, x: BankContext, j: number, hash: Sig, a3: Sig, a4: Sig) {
  const { t, laneBits } = x.d;
  const sa3 = x.s3.scanAddr;
  // This bank's copy of the scan window (4·t comparators read it). Copies of different banks
  // are registers of different kinds (with or without reset, with or without enable) so
  // synthesis cannot merge them back into one register with a chip-wide fan-out.
  const kind = j % 4;
  const copy = (s: Sig, name: string): Sig =>
    m.pipe(s, 1, name, { reset: kind & 1 ? 0 : null, ...(kind & 2 ? { en: x.s3.valid } : {}) });
  const scanWin: Window = {
    nlo: copy(x.s3.scanNlo, 'scan_nlo'),
    nhi: copy(x.s3.scanNhi, 'scan_nhi'),
    wrap: copy(x.s3.scanWrap, 'scan_wrap'),
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
  // On lanes the step comes with any op (its own lane excluded only when it inserts), and the
  // lanes shard's config keeps those refreshed lanes too young to be stale (tbf/lanes.ts).
  const allow = Array.from({ length: t }, (_, i) => {
    const own0 = lane3 === null ? a3.eq(sa3) : a3.eq(sa3).and(lane3.eq(i));
    const own = x.s3.scan ? own0.and(x.s3.ins) : own0;
    const ahead = lane4 === null ? x.ins4.and(a4.eq(sa3)) : x.ins4.and(a4.eq(sa3)).and(lane4.eq(i));
    return m.pipe(
      own
        .or(ahead)
        .not()
        .and(x.s3.valid)
        .and(x.s3.scan ?? x.s3.ins),
      1,
      `scan_allow${i}`,
      {
        reset: null,
      },
    );
  });
  return { scanWin, lane4, oneHot, allow };
}

/** The RAM words with the writes of the ops one, two and three ahead applied. */
function forwardedWords(
  m: ModuleBuilder,
  x: BankContext,
  rd: { timers: Sig; marks: Sig; scan: Sig },
  w: ReturnType<typeof writeRegisters>,
  hz: ReturnType<typeof hazards>,
) {
  const { t } = x.d;
  const fwd = x.forwarding;
  // A+3: the writes of the ops two and three ahead, registered.
  const fullFwd = (z: Sig, wr: Sig, word: Sig): Sig =>
    fwd ? m.mux(z, w.opTimers, m.mux(wr, w.lastTimers, word)) : word;
  const timers3 = m.pipe(fullFwd(hz.zA, hz.wA, rd.timers), 1, 'word_timers', { reset: null });
  const scan = m.pipe(fullFwd(hz.zScan, hz.wScan, rd.scan), 1, 'word_scan', { reset: null });
  const maskedFwd = (word: Sig, en: Sig, mask: Sig, data: Sig): Sig => {
    const sel = mask.and(m.mux(en, m.const((1n << BigInt(t)) - 1n, t), 0));
    return word.and(sel.not()).or(data.and(sel));
  };
  const marks3 = m.pipe(
    fwd
      ? maskedFwd(maskedFwd(rd.marks, hz.wS, w.lastMarksMask, w.lastMarksData), hz.zS, w.opMarksMask, w.opMarksData)
      : rd.marks,
    1,
    'word_marks',
    { reset: null },
  );
  // A+4: the op one ahead's writes (in the write registers now).
  const timers = fwd ? m.mux(hz.yA, w.opTimers, timers3) : timers3;
  const marks = fwd ? maskedFwd(marks3, hz.yS, w.opMarksMask, w.opMarksData) : marks3;
  return { scan, timers, marks };
}

const laneOf = (x: BankContext, word: Sig, i: number): Sig => word.slice((i + 1) * x.d.lw - 1, i * x.d.lw);

/** The op's own timer, {L_A, T} and L_S, out of the corrected words; registered into A+5. */
function selectLane(m: ModuleBuilder, x: BankContext, words: { timers: Sig; marks: Sig }, lane4: Sig | null) {
  const tb = x.c.timerBits;
  const lanes = Array.from({ length: x.d.t }, (_, i) => laneOf(x, words.timers, i));
  const mine = muxTree(m, lanes, lane4);
  const myLS = muxTree(
    m,
    Array.from({ length: x.d.t }, (_, i) => words.marks.bit(i)),
    lane4,
  );
  return {
    lanes,
    la: m.pipe(mine.bit(tb), 1, 'la', { reset: null }),
    ls: m.pipe(myLS, 1, 'ls', { reset: null }),
    time: m.pipe(mine.slice(tb - 1, 0), 1, 'time', { reset: null }),
  };
}

/**
 * The words written back. Insert: {¬L_S, T+} into its lane (lane i's own L_S when i is the
 * lane), the whole word to both copies. Expiry scanner, one word per insert, after the insert:
 * lanes of the scan word whose T is in the stale window, except the lanes refreshed since the
 * read (see `allow`): their marks get L_S := L_A.
 */
function newWords(
  m: ModuleBuilder,
  x: BankContext,
  words: { scan: Sig; marks: Sig },
  lanes: { scanWin: Window; oneHot: Sig[]; allow: Sig[] },
  own: Sig[],
) {
  const { t } = x.d;
  const tb = x.c.timerBits;
  const timers = m.cat(
    ...own
      .map((old, i) => m.mux(lanes.oneHot[i]!, m.cat(words.marks.bit(i).not(), x.s4.tlast ?? x.s4.tplus), old))
      .reverse(),
  );
  const markBits: Sig[] = [];
  const laBits: Sig[] = [];
  for (let i = 0; i < t; i++) {
    const lane = laneOf(x, words.scan, i);
    markBits.push(x.tm.contains(lane.slice(tb - 1, 0), lanes.scanWin).and(lanes.allow[i]!));
    laBits.push(lane.bit(tb));
  }
  const marksMask = x.scanner ? m.cat(...[...markBits].reverse()) : m.const(0, t);
  const marksData = m.cat(...[...laBits].reverse());
  return { timers, marksMask, marksData };
}

/** A+5: each bank's age (T+ − T) and expiry (L_A = L_S, or T in the query's stale window), registered. */
function agesAndExpiry(
  m: ModuleBuilder,
  c: TbfDerived,
  d: Dims,
  tm: TimerMath,
  s5: { tplus: Sig; tplusW: Sig; expNlo: Sig; expNhi: Sig; expWrap: Sig },
  banks: BankOut[],
) {
  const exp6: Sig[] = [];
  const age6: Sig[] = [];
  banks.forEach((bank, j) => {
    const age = tm.age(s5.tplus, s5.tplusW, bank.time);
    const over = tm.contains(bank.time, { nlo: s5.expNlo, nhi: s5.expNhi, wrap: s5.expWrap });
    const live = bank.la.xor(bank.ls);
    exp6.push(m.pipe(live.not().or(over), 1, `s6_exp${j}`, { reset: null }));
    age6.push(m.pipe(age.slice(Math.min(c.timerBits, d.LB) - 1, 0).zext(d.LB), 1, `s6_age${j}`, { reset: null }));
  });
  return { age6, exp6 };
}

interface Response {
  valid: Sig;
  tag: Sig;
  hit: Sig;
  lambda: Sig;
  c: Sig;
}

/**
 * A+8, A+9: the posterior ROM read at (class, c-index, lo = (λ−1)B + b), then compared with the
 * request's penalty ratio (see src/families/tbf/decision.ts).
 */
function decisionUnit(
  m: ModuleBuilder,
  c: TbfDerived,
  d: Dims,
  dl: ReturnType<typeof decisionLayout>,
  s8: Response & { query: Sig; b?: Sig; cls?: Sig; ratio?: Sig },
): { last: Response; decision: Sig } {
  const rom = m.memory('posterior', {
    width: dl.width,
    depth: dl.depth,
    readDuringWrite: 'old',
    init: decisionTable(c).map((v) => BigInt(v)),
  });
  const lam0 = s8.lambda.eq(0);
  const bz = s8.b ? s8.b : m.const(0, 1);
  const wide = d.LB + d.bBits + dl.loBits;
  const lamMinus1 = s8.lambda.sub(1).zext(wide);
  const loFromLam = (d.bBits > 0 ? lamMinus1.shl(d.bBits) : lamMinus1).or(bz.zext(wide)).trunc(dl.loBits);
  const lo = m.mux(lam0, bz.zext(Math.max(dl.loBits, bz.width)).trunc(dl.loBits), loFromLam);
  const cIdx = m.mux(lam0, 0, s8.c.zext(Math.max(dl.cBits, d.cBits)).trunc(dl.cBits));
  const parts = [cIdx, lo];
  if (s8.cls) parts.unshift(s8.cls);
  const romAddr = m.cat(...parts);
  const aw = Math.log2(dl.depth);
  const word = rom.read(romAddr.width === aw ? romAddr : romAddr.zext(aw), s8.valid);
  rom.write(0, 0, 0);
  const s9 = pipeStage(m, 's9', {
    valid: s8.valid,
    query: s8.query,
    tag: s8.tag,
    hit: s8.hit,
    lambda: s8.lambda,
    c: s8.c,
    ratio: s8.ratio,
    expired: s8.lambda.eq(2 ** d.LB - 1),
  });
  const pw = m.mux(s9.expired, 0, word);
  return { last: s9, decision: pw.ge(s9.ratio!.zext(dl.width)).and(s9.query) };
}
