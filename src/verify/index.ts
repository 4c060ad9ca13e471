/**
 * `verify`: one random request stream checked three ways, for any family.
 * 1. model ≡ simulator: every response of the TS simulator equals the reference model's answer
 *    (src/verify/stream.ts, with poisoned read-during-write collisions);
 * 2. simulator ≡ RTL: the same per-cycle stimulus on Verilator (and Icarus) gives the same
 *    outputs on every port, every cycle;
 * 3. memories ≡ model: after the stream has drained, the simulator's memories equal the model's
 *    state.
 * A run that could not finish (a stuck pipeline) fails, whatever it compared.
 */
import type { Filter } from '../families/filter.js';
import type { MemoryCheck } from '../families/types.js';
import { comparePacked, type Comparison } from '../../sim/cosim/compare.js';
import { runIcarusPacked } from '../../sim/cosim/icarus.js';
import { runVerilatorPacked } from '../../sim/cosim/verilator.js';
import { driveAsync, type DriveOptions, type DriveResult } from './stream.js';

export { runRequests, StreamSession, type SessionRequest } from './session.js';

export interface VerifyOptions extends DriveOptions {
  /** Compare with Verilator (default true). */
  verilator?: boolean;
  icarus?: boolean;
}

export interface VerifyResult {
  drive: DriveResult;
  memory: MemoryCheck;
  rtl: Comparison[];
  /** Response, memory and RTL mismatches together. */
  mismatches: number;
  /** Finished with no mismatch. */
  ok: boolean;
}

/** Replays a recorded run on Verilator (default) and Icarus; one comparison per engine. */
export async function rtlComparisons(
  r: DriveResult,
  o: { icarus?: boolean; verilator?: boolean },
): Promise<Comparison[]> {
  const t = r.trace;
  if (!t) throw new Error('rtlComparisons: the run was not recorded');
  const rtl: Comparison[] = [];
  if (o.verilator ?? true) {
    const vl = await runVerilatorPacked(r.design, t.stim, t.cycles);
    rtl.push(comparePacked(r.design, ['ts-compiled', 'verilator'], t.out, vl, t.cycles));
  }
  if (o.icarus) {
    const iv = await runIcarusPacked(r.design, t.stim, t.cycles);
    rtl.push(comparePacked(r.design, ['ts-compiled', 'icarus'], t.out, iv, t.cycles));
  }
  return rtl;
}

export async function verifyFilter(f: Filter, o: VerifyOptions): Promise<VerifyResult> {
  const drive = await driveAsync(f, { ...o, record: true });
  const memory = drive.model.compareMemories((name, addr) => drive.sim.readMemory(name, addr));
  const rtl = await rtlComparisons(drive, o);
  const mismatches = drive.mismatchCount + memory.count + rtl.reduce((s, x) => s + x.count, 0);
  return { drive, memory, rtl, mismatches, ok: drive.finished && mismatches === 0 };
}
