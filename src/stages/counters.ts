/**
 * Stage: a bank of packed counters in block RAM, read-modify-written one op per cycle with
 * forwarding of the writes still in flight (counting, spectral, and later bitwise or stable
 * filters).
 *
 * `counterBank`: `lanes` counters of `counterBits` bits per word (lane 0 in the low bits),
 *   `depth` words. An op presents its word address and lane in cycle R (the read); its counter,
 *   as left by every earlier op, is `value` in R+3 (M, the modify stage), one LUT level from
 *   registers; the caller computes the new counter from it (any per-lane update function: a
 *   saturating step, a minimum increase decided across banks, an addition) and closes the bank
 *   with `update(next)`; the op's word is written at the end of R+4 (W) with only its lane
 *   changed, when `modify` was set in R (every modifying op writes, changed or not). A sweep
 *   (reset, clear) writes a zero word through the same port; the caller keeps ops out of the
 *   pipeline while it runs.
 *
 * Timing of an op X read in cycle R. Op X−d is in W, and writes, in X's cycle R+4−d:
 *   X−4 writes at the end of R, the edge that latches X's read (a read-during-write collision:
 *       the memory is 'undefined' there) — the word is taken from `fwd_data` (the word written
 *       last cycle) into `rdq` in R+1 (`hit_c`, compared in R);
 *   X−3 writes at the end of R+1 — `fwd_data` replaces `rdq` in R+2 (`hit_e`); the lane is
 *       extracted from that word;
 *   X−2 writes at the end of R+2 — its new counter (`nv`, a register in R+2) replaces the lane
 *       when it is the same counter (`same2`), registered as `old`;
 *   X−1 writes at the end of R+3 — its `nv` replaces `old` in M when the same counter (`same1`).
 * So `value` = same1 ? nv : old: the distance-1 loop (nv → value → the caller's update → nv) is
 * the only path that must close in one cycle. The word written back needs every other lane as
 * well: in M it is the word X−1 writes (`same1w`: combinational, one LUT from registers), else the
 * word X−2 wrote (`same2w`: `fwd_data`), else the word of R+2 (registered); registered as `base`,
 * and in W the lane is replaced by `nv` (one LUT before the RAM's data port). Every comparison is
 * registered a cycle before its select is used.
 *
 * Registers (in the caller's scope): `addr_p1..p4`, `lane_p1..p3`, `onehot_p1`, `mod_p1..p4`,
 * `rdq`, `word_e`, `old`, `nv`, `base`, `fwd_data`, the compares `hit_c`, `hit_e`, `same2`,
 * `same1`, `same1w`, `same2w`, the write port's `w_en`, `w_sweep`, `w_addr`. Memory `ram`
 * (lanes·counterBits × depth, read-during-write 'undefined').
 * Guarantee: with `forwarding`, `value` is the op's counter after every earlier op's update, and
 * the memory holds every update, for any op sequence at one op per cycle (back-to-back ops on
 * one counter or one word included). `forwarding: false` exists to show the tests catch the
 * hazards (test/stages/counters.test.ts, under read-during-write poisoning).
 */
import type { ModuleBuilder, Sig } from '../dsl/module.js';
import { muxTree } from './primitives.js';
import { registeredMatch } from './rmw.js';

/** Cycles from an op's read (R) to its modify stage M, where `value` is valid. */
export const COUNTER_MODIFY = 3;
/** Cycles from the read to the end of which the op's word is written (W = M + 1). */
export const COUNTER_WRITE = 4;

export interface CounterBankOptions {
  counterBits: number;
  /** Counters per word, a power of two. */
  lanes: number;
  /** Words, a power of two >= 2. */
  depth: number;
  /** The op's word address and lane in R (registers; lane null when lanes = 1). */
  addr: Sig;
  lane: Sig | null;
  /** An op is in R (the read enable). */
  read: Sig;
  /** The op in R writes its counter back (a register that resets to 0). */
  modify: Sig;
  /** The sweep: when `active`, a zero word is written at `addr` at the end of the next cycle. */
  sweep: { active: Sig; addr: Sig };
  forwarding: boolean;
}

export interface CounterBank {
  /** M: the op's counter as left by every earlier op. */
  value: Sig;
  /** Closes the bank with the op's new counter in M (written back in W when `modify`). */
  update(next: Sig): void;
}

export function counterBank(m: ModuleBuilder, o: CounterBankOptions): CounterBank {
  const w = o.counterBits;
  const L = o.lanes;
  const AW = L * w;
  const fwdOn = o.forwarding;
  const mem = m.memory('ram', { width: AW, depth: o.depth, readDuringWrite: 'undefined' });
  const rd = mem.read(o.addr, o.read);
  // The op's fields one to four cycles after R (index i: R+i).
  const delays = (x: Sig, n: number, name: string, reset: boolean): Sig[] => {
    const out = [x];
    for (let i = 1; i <= n; i++) {
      const r = m.reg(`${name}_p${i}`, x.width, reset ? {} : { reset: null });
      r.next(out[i - 1]!);
      out.push(r);
    }
    return out;
  };
  const addr = delays(o.addr, 4, 'addr', false);
  const lane: (Sig | null)[] = o.lane === null ? [null, null, null, null] : delays(o.lane, 3, 'lane', false);
  const mod = delays(o.modify, 4, 'mod', true);
  const sameLane = (a: number, b: number): Sig | null => (o.lane === null ? null : lane[a]!.eq(lane[b]!));
  const match = (name: string, write: Sig, wa: Sig, ra: Sig, lanes: Sig | null): Sig =>
    fwdOn
      ? m.pipe(lanes === null ? write.and(wa.eq(ra)) : write.and(wa.eq(ra)).and(lanes), 1, name, { reset: null })
      : m.const(0, 1);
  // Write port registers: the op in M writes at the end of W (the next cycle), as does the sweep.
  const fwd = m.reg('fwd_data', AW, { reset: null });
  // R → R+1: the word X−4 wrote at the read's edge.
  const hitC = fwdOn
    ? registeredMatch(m, 'hit_c', { write: mod[4]!, writeAddr: addr[4]!, readAddr: addr[0]!, reset: false })
    : m.const(0, 1);
  const rdq = m.pipe(fwdOn ? m.mux(hitC, fwd, rd) : rd, 1, 'rdq', { reset: null });
  // R+1 → R+2: the word X−3 wrote; X−2's counter.
  const hitE = match('hit_e', mod[4]!, addr[4]!, addr[1]!, null);
  const same2 = match('same2', mod[3]!, addr[3]!, addr[1]!, sameLane(3, 1));
  const wordE = fwdOn ? m.mux(hitE, fwd, rdq) : rdq;
  const nv = m.reg('nv', w, { reset: null });
  const lanesE = Array.from({ length: L }, (_, j) => wordE.slice((j + 1) * w - 1, j * w));
  const laneE = muxTree(m, lanesE, lane[2] ?? null);
  const old = m.pipe(fwdOn ? m.mux(same2, nv, laneE) : laneE, 1, 'old', { reset: null });
  const word3 = m.pipe(wordE, 1, 'word_e', { reset: null });
  // R+2 → M: X−1's counter and word, X−2's word.
  const same1 = match('same1', mod[3]!, addr[3]!, addr[2]!, sameLane(3, 2));
  const same1w = match('same1w', mod[3]!, addr[3]!, addr[2]!, null);
  const same2w = match('same2w', mod[4]!, addr[4]!, addr[2]!, null);
  const value = fwdOn ? m.mux(same1, nv, old) : old;
  // W: the op's word with its lane replaced by nv (one LUT before the data port).
  const base = m.reg('base', AW, { reset: null });
  const onehot = m.pipe(
    o.lane === null ? m.const(1, 1) : m.cat(...Array.from({ length: L }, (_, j) => lane[3]!.eq(j)).reverse()),
    1,
    'onehot',
    { reset: null },
  );
  const opWord = m.cat(
    ...Array.from({ length: L }, (_, j) => m.mux(onehot.bit(j), nv, base.slice((j + 1) * w - 1, j * w))).reverse(),
  );
  base.next(fwdOn ? m.mux(same1w, opWord, m.mux(same2w, fwd, word3)) : word3);
  const wSweep = m.pipe(o.sweep.active, 1, 'w_sweep');
  const wEn = m.pipe(o.sweep.active.or(mod[3]!), 1, 'w_en');
  const wAddr = m.pipe(m.mux(o.sweep.active, o.sweep.addr, addr[3]!), 1, 'w_addr', { reset: null });
  const wData = m.mux(wSweep, m.const(0, AW), opWord);
  mem.write(wAddr, wData, wEn);
  fwd.next(wData);
  let closed = false;
  return {
    value,
    update(next: Sig): void {
      if (closed) throw m.error('counterBank: update() called twice');
      closed = true;
      nv.next(next);
    },
  };
}

export interface SaturatingStep {
  next: Sig;
  /** An increment found the counter at 2^w − 1 (it stays there). */
  overflow: Sig;
  /** A decrement found the counter at 0 (it stays there). */
  underflow: Sig;
}

/**
 * The counting filter's per-lane update: +1 on `inc`, −1 on `dec` (never both), saturating at
 * 2^w − 1 and at 0.
 */
export function saturatingStep(m: ModuleBuilder, value: Sig, inc: Sig, dec: Sig): SaturatingStep {
  const w = value.width;
  const atMax = value.eq(2 ** w - 1);
  const atZero = value.eq(0);
  const up = m.mux(atMax, value, value.add(1));
  const down = m.mux(atZero, value, value.sub(1));
  return {
    next: m.mux(inc, up, m.mux(dec, down, value)),
    overflow: inc.and(atMax),
    underflow: dec.and(atZero),
  };
}

/** a + b saturating at 2^w − 1, and whether it saturated (a carry out of w bits). */
export function saturatingAdd(m: ModuleBuilder, a: Sig, b: Sig): { sum: Sig; overflow: Sig } {
  const w = a.width;
  const s = a.zext(w + 1).add(b.zext(w + 1));
  const carry = s.bit(w);
  return { sum: m.mux(carry, m.const(2 ** w - 1, w), s.trunc(w)), overflow: carry };
}
