/**
 * The soak (issue 23 item 7): a long run of one filter in the compiled simulator against its
 * reference model, with random back-pressure, idle cycles and mid-stream resets, in two parts:
 *
 *  - membership: the family's membership ops (test-and-insert, or insert and query) plus clears
 *    where the protocol has them, checked against the exact window as well — no false negative
 *    where the family promises none (a clear empties the window; a reset too);
 *  - every op: the family's verification mix (ticks, removes, clears, …), where the exact window
 *    no longer applies, checked against the model only.
 *
 * In both, every response is compared with the model's (tag and every field, in request order:
 * a response missing, extra or out of order is a mismatch), and the memories are compared with
 * the model's at the end. Requests cut off by a reset are counted, not answered.
 */
import type { Filter } from '../families/filter.js';
import { driveSteps, type DriveResult } from './stream.js';

export interface SoakPart {
  part: 'membership' | 'every op';
  ops: number;
  cycles: number;
  mix: Record<string, number>;
  resets: number;
  lostToReset: number;
  mismatches: number;
  firstMismatches: string[];
  memoryMismatches: number;
  finished: boolean;
  stopReason: string | null;
  /** Null when the part does not check the window (or the family promises none). */
  falseNegatives: number | null;
  inWindow: number | null;
  seconds: number;
}

export interface SoakResult {
  name: string;
  family: string;
  parts: SoakPart[];
  ok: boolean;
}

export interface SoakOptions {
  /** Operations in all (split evenly between the parts). */
  ops: number;
  seed: number;
  /** Reset pulses per cycle (default: one every 50 000 cycles on average). */
  resetRate?: number;
  onProgress?: (ops: number) => void;
}

/** The membership mix with clears where the protocol has them (one in 5000 ops). */
function membershipWithClears(f: Filter): Record<string, number> {
  const mix = f.membershipMix();
  const ops = f.protocol().ops;
  const clear = Object.keys(ops).find((op) => f.protocol().semantics[op]?.clears);
  if (!clear) return mix;
  const total = Object.values(mix).reduce((a, b) => a + b, 0);
  return { ...mix, [clear]: total / 5000 };
}

function* partSteps(
  f: Filter,
  part: SoakPart['part'],
  ops: number,
  seed: number,
  resetRate: number,
  onProgress?: (ops: number) => void,
): Generator<void, SoakPart, void> {
  const window = f.window();
  const exactWindow = part === 'membership' && window !== null;
  const mix = part === 'membership' ? membershipWithClears(f) : f.verifyMix();
  const t0 = performance.now();
  // Back-pressure (0 to 0.9; 0.99 is the conformance tests' business: a soak there crawls) and idle
  // cycles change from chunk to chunk: the driver takes one of each,
  // so the part runs in chunks of ops with their own (random) values.
  const chunks = Math.max(1, Math.ceil(ops / 250_000));
  const out: SoakPart = {
    part,
    ops: 0,
    cycles: 0,
    mix,
    resets: 0,
    lostToReset: 0,
    mismatches: 0,
    firstMismatches: [],
    memoryMismatches: 0,
    finished: true,
    stopReason: null,
    falseNegatives: exactWindow ? 0 : null,
    inWindow: exactWindow ? 0 : null,
    seconds: 0,
  };
  const BP = [0, 0.1, 0.3, 0.5, 0.9];
  for (let i = 0; i < chunks; i++) {
    const n = Math.floor(ops / chunks) + (i < ops % chunks ? 1 : 0);
    const s = seed * 1009 + i;
    const it = driveSteps(f, {
      ops: n,
      seed: s,
      mix,
      backpressure: BP[s % BP.length]!,
      idle: (s % 7) / 20,
      exactWindow,
      resetRate,
      onProgress: (p) => onProgress?.(out.ops + p.accepted),
    });
    let r: DriveResult;
    for (;;) {
      const step = it.next();
      if (step.done) {
        r = step.value;
        break;
      }
      yield;
    }
    out.ops += r.ops;
    out.cycles += r.cycles;
    out.resets += r.resets;
    out.lostToReset += r.lostToReset;
    out.mismatches += r.mismatchCount;
    for (const m of r.mismatches)
      if (out.firstMismatches.length < 5)
        out.firstMismatches.push(`chunk ${i} op ${m.op} (${m.kind}): expected ${m.expected}, got ${m.got}`);
    const mem = r.model.compareMemories((name, a) => r.sim.readMemory(name, a));
    out.memoryMismatches += mem.count;
    if (!r.finished) {
      out.finished = false;
      out.stopReason = `chunk ${i}: ${r.stopReason ?? 'did not finish'}`;
    }
    if (r.window) {
      out.falseNegatives! += r.window.falseNegatives;
      out.inWindow! += r.window.inWindow;
    }
  }
  out.seconds = (performance.now() - t0) / 1000;
  return out;
}

/** The soak of one filter, as steps (the caller turns the event loop between them). */
export function* soakSteps(f: Filter, o: SoakOptions): Generator<void, SoakResult, void> {
  const resetRate = o.resetRate ?? 1 / 50_000;
  const half = Math.floor(o.ops / 2);
  const parts: SoakPart[] = [];
  parts.push(yield* partSteps(f, 'membership', o.ops - half, o.seed, resetRate, o.onProgress));
  const done = parts[0]!.ops;
  parts.push(yield* partSteps(f, 'every op', half, o.seed + 1, resetRate, (n) => o.onProgress?.(done + n)));
  const ok = parts.every(
    (p) => p.finished && p.mismatches === 0 && p.memoryMismatches === 0 && (p.falseNegatives ?? 0) === 0,
  );
  return { name: f.name, family: f.family.id, parts, ok };
}

export function soak(f: Filter, o: SoakOptions): SoakResult {
  const it = soakSteps(f, o);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
  }
}
