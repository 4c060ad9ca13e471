/**
 * Stage: clearing block RAM without stalling — the reset/clear sweep and the background clear
 * channels. Both write zeros one word per cycle through a bank's write port; a run starts
 * CLEAR_DELAY cycles after the event that starts it, so reads of the bank already in flight
 * finish first.
 *
 * `clearSweep`: clears every bank at once (reset, power-up, the clear op). Registers
 *   `sweep_busy` (reset 1: power-up sweeps), `sweep_delay` (reset CLEAR_DELAY), `sweep_addr`,
 *   `sweep_active`, and in the lookahead form `sweep_last`. Timing: `start` high in cycle t
 *   (and at power-up, t = −1) → `active` high in cycles t+CLEAR_DELAY+1 … t+CLEAR_DELAY+depth
 *   with `addr` = 0 … depth−1, `busy` high from t+1 to the last of those; a start during a run
 *   restarts it. Guarantee: every address is cleared exactly once per run, in order. Two forms
 *   with the same timing and different netlists (each was placed best by its generator):
 *   'next-state' (APBF: `active` is registered from the next busy and delay; the last address
 *   is a compare) and 'lookahead' (TBF: `active` from the current state, the last address a
 *   register `sweep_last`).
 * `clearChannels`: `count` channels that each clear one target bank in the background, one per
 *   start (the APBF's spares: a bank leaving the window is cleared while the others serve
 *   requests). Registers per channel i: `clr<i>_busy`, `clr<i>_delay`, `clr<i>_addr`,
 *   `clr<i>_target` (one bit per bank), `clr<i>_start_q`, `clr<i>_active`; per bank port:
 *   `clr_issue`, `clr_write`, `clr_addr` (two stages; with `sharedAddr` and one channel the
 *   ports share `clr_addr_shared`, built in the first port's scope). Timing as the sweep's, the
 *   target latched the cycle after the start; `abort` (a clear op: the sweep takes over) stops
 *   every channel. The bank port's write lands two cycles after the channel issues it; the sweep
 *   has priority in the port. The caller's side of the contract: a start goes to an idle channel
 *   (hold it while the selected channel's `busyNext` is high), and no two busy channels target
 *   one bank.
 */
import type { ModuleBuilder, Reg, Sig } from '../dsl/module.js';
import { bitsFor } from './primitives.js';

/**
 * Cycles between the event that starts a clear (a shift, a clear op, reset) and its first write:
 * in-flight reads of the bank finish first. Part of every zero-stall bound.
 */
export const CLEAR_DELAY = 4;

/** The counters of one clear run. */
interface Run {
  busy: Reg;
  delay: Reg;
  addr: Reg;
}

/** The delay counts down while busy and idles at 0 (or where a start reloaded it). */
function countDown(m: ModuleBuilder, r: Run): Sig {
  return m.mux(r.busy.and(r.delay.ne(0)), r.delay.sub(1), r.delay);
}

/** The address moves one word per active cycle, wraps after the last, and restarts at 0. */
function nextAddr(m: ModuleBuilder, r: Run, active: Sig, restart: Sig): Sig {
  return m.mux(restart, 0, m.mux(active, r.addr.add(1), r.addr));
}

export interface ClearSweepOptions {
  addrBits: number;
  /** Words per bank. */
  depth: number;
  /** Use this register as `sweep_busy` (a design that needs it before the counters exist). */
  busy?: Reg;
}

export interface ClearSweep extends Run {
  /**
   * 'next-state' form, step 1: `busyNext` (what in_ready wants a cycle early) and the active
   * flag; build what needs `busyNext`, then call `finish`.
   */
  connectNextState(start: Sig): { active: Sig; busyNext: Sig; finish: () => void };
  /** 'lookahead' form, in one step. */
  connectLookahead(start: Sig): { active: Sig };
}

export function clearSweep(m: ModuleBuilder, o: ClearSweepOptions): ClearSweep {
  const busy = o.busy ?? m.reg('sweep_busy', 1, { reset: 1 });
  const run: Run = {
    busy,
    delay: m.reg('sweep_delay', bitsFor(CLEAR_DELAY), { reset: CLEAR_DELAY }),
    addr: m.reg('sweep_addr', o.addrBits),
  };
  const connectNextState = (start: Sig): { active: Sig; busyNext: Sig; finish: () => void } => {
    // busy && delay == 0, registered from the next-state values (keeps the compare off the
    // block RAM write-enable path).
    const active = m.reg('sweep_active', 1);
    const busyNext = m.mux(start, 1, m.mux(active.and(run.addr.eq(o.depth - 1)), 0, busy));
    busy.next(busyNext);
    const finish = (): void => {
      const delayNext = m.mux(start, CLEAR_DELAY, countDown(m, run));
      run.delay.next(delayNext);
      active.next(busyNext.and(delayNext.eq(0)));
      run.addr.next(nextAddr(m, run, active, start));
    };
    return { active, busyNext, finish };
  };
  const connectLookahead = (start: Sig): { active: Sig } => {
    // active next = the delay is about to reach 0, or still before the last word: no compare
    // of a next-state value, and "last word" is a register kept beside the address.
    const active = m.reg('sweep_active', 1);
    const lastReg = o.depth === 1 ? null : m.reg('sweep_last', 1);
    const last = lastReg ?? m.const(1, 1);
    active.next(start.not().and(m.mux(active, last.not(), busy.and(run.delay.eq(1)))));
    lastReg?.next(m.mux(start, 0, m.mux(active, run.addr.eq(o.depth - 2), lastReg)));
    busy.next(m.mux(start, 1, m.mux(active.and(last), 0, busy)));
    run.delay.next(m.mux(start, CLEAR_DELAY, countDown(m, run)));
    run.addr.next(nextAddr(m, run, active, start));
    return { active };
  };
  return { ...run, connectNextState, connectLookahead };
}

export interface ClearChannelsOptions {
  count: number;
  addrBits: number;
  /** Banks a channel can target (bits of `clr<i>_target`). */
  banks: number;
  /**
   * One channel: every bank port's address is the channel's or the sweep's, not zeroed where the
   * channel does not target the bank (the address matters only with `write`), so the ports'
   * address registers are one pair the banks share (default false; true in a lane design's APBF
   * shard).
   */
  sharedAddr?: boolean;
}

export interface ChannelsConnectOptions {
  /** A run starts (on one channel). */
  start: Sig;
  /** The channel a start goes to (null: one channel). */
  select: Sig | null;
  /** Stop every channel (and reload its delay). */
  abort: Sig;
  /** Words per bank. */
  depth: number;
  /** Target mask of channel i, latched the cycle after its start (built once per channel). */
  target: (channel: number) => Sig;
}

export interface ClearChannel extends Run {
  target: Reg;
}

export interface ClearChannels {
  channels: ClearChannel[];
  /** The channels' logic; returns each channel's next busy value. */
  connect(o: ChannelsConnectOptions): { busyNext: Sig[] };
  /**
   * The clear port of bank `bank`: a channel targeting it or the sweep writes. `issue`: a zero
   * is written next cycle; `write`, `addr`: a zero is written now, at `addr`.
   */
  bankPort(bank: number, sweep: { active: Sig; addr: Sig }): { issue: Sig; write: Sig; addr: Sig };
}

export function clearChannels(m: ModuleBuilder, o: ClearChannelsOptions): ClearChannels {
  const channels: ClearChannel[] = Array.from({ length: o.count }, (_, i) => ({
    busy: m.reg(`clr${i}_busy`, 1),
    delay: m.reg(`clr${i}_delay`, bitsFor(CLEAR_DELAY), { reset: CLEAR_DELAY }),
    addr: m.reg(`clr${i}_addr`, o.addrBits),
    target: m.reg(`clr${i}_target`, o.banks),
  }));
  const active: Sig[] = [];
  // The bank ports' shared address (sharedAddr), built by the first bank port.
  let sharedAddr: Sig | null = null;
  const connect = (c: ChannelsConnectOptions): { busyNext: Sig[] } => {
    const busyNext = channels.map((ch, i) => {
      const start = c.select === null ? c.start : c.start.and(c.select.eq(i));
      const startQ = m.pipe(start, 1, `clr${i}_start_q`);
      const act = m.reg(`clr${i}_active`, 1);
      active.push(act);
      const done = act.and(ch.addr.eq(c.depth - 1));
      const bn = m.mux(c.abort, 0, m.mux(start, 1, m.mux(done, 0, ch.busy)));
      ch.busy.next(bn);
      // The delay idles at CLEAR_DELAY (reloaded when a run ends or is aborted), so a start
      // needs no load: neither the delay nor the address waits on a start.
      const delayNext = m.mux(c.abort.or(done), CLEAR_DELAY, countDown(m, ch));
      ch.delay.next(delayNext);
      act.next(bn.and(delayNext.eq(0)));
      ch.addr.next(nextAddr(m, ch, act, c.abort));
      ch.target.next(m.mux(startQ, c.target(i), ch.target));
      return bn;
    });
    return { busyNext };
  };
  const bankPort = (bank: number, sweep: { active: Sig; addr: Sig }): { issue: Sig; write: Sig; addr: Sig } => {
    if (active.length !== channels.length) throw m.error('clearChannels: call connect() before bankPort()');
    // Enable and address pass two registers (one LUT level from registers to the write port).
    const here = channels.map((ch, i) => active[i]!.and(ch.target.bit(bank)));
    const issue = m.pipe(
      here.reduce((x, y) => x.or(y), sweep.active),
      1,
      'clr_issue',
    );
    const write = m.pipe(issue, 1, 'clr_write');
    if (o.sharedAddr && channels.length === 1) {
      if (!sharedAddr)
        sharedAddr = m.pipe(m.mux(sweep.active, sweep.addr, channels[0]!.addr), 2, 'clr_addr_shared', { reset: null });
      return { issue, write, addr: sharedAddr };
    }
    const chanAddr = channels.reduce<Sig>((acc, ch, i) => acc.or(m.mux(here[i]!, ch.addr, 0)), m.const(0, o.addrBits));
    const addr = m.pipe(m.mux(sweep.active, sweep.addr, chanAddr), 2, 'clr_addr', { reset: null });
    return { issue, write, addr };
  };
  return { channels, connect, bankPort };
}
