/**
 * The stream driver and scoreboard every family is verified with.
 *
 * It drives a filter pipeline in the compiled simulator with a random stream of requests through
 * the family's stream protocol (valid/ready on both sides, random idle cycles and back-pressure),
 * gives every accepted request to the family's reference model, and checks every response
 * (tag and every response field, in request order) against the model's answer. It runs exactly
 * the ops asked for: it keeps going until every request has been accepted and every response
 * received, then idles `latency` more cycles so no write is still in flight when memories are
 * compared. A run that stops making progress (no request accepted and no response given for
 * longer than the protocol allows) stops with `finished = false` and the reason.
 *
 * Optionally it records the packed stimulus and outputs of every cycle (for Verilator, Icarus
 * and VCDs), and checks answers against the exact window (no false negative where the family
 * promises none; false positives counted).
 *
 * The simulator runs with poisoned read-during-write collisions, so a pipeline that relied on
 * undefined block RAM behaviour fails the comparison with the model.
 *
 * The parts, each its own module: driver.ts (offers requests, advances the clock), ports.ts (a
 * stream's ports and the request it offers), ready.ts (back-pressure and idle patterns),
 * requests.ts (random requests), scoreboard.ts (responses in order against the expected),
 * oracle.ts (the exact window), reset.ts (reset pulses), bench.ts (the clock and the recording).
 * The lane driver (lanes.ts) runs the same parts once per lane; session.ts runs given requests.
 */
import type { Filter } from '../families/filter.js';
import { StreamDriver } from './driver.js';
import type { DriveOptions, DriveResult } from './options.js';

export { keysOf, PROGRESS_CYCLES, type DriveOptions, type DriveResult, type ResponseMismatch } from './options.js';
export { Grow, type PackedTrace } from './grow.js';
export type { WindowCounts } from './oracle.js';
export { pickerOf } from './requests.js';

/** The driver as a generator: yields every PROGRESS_CYCLES cycles (see drive / driveAsync). */
export function driveSteps(f: Filter, o: DriveOptions): Generator<void, DriveResult, void> {
  return new StreamDriver(f, o).steps();
}

/** Runs the whole stream synchronously. */
export function drive(f: Filter, o: DriveOptions): DriveResult {
  const it = driveSteps(f, o);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
  }
}

/** The same, turning the event loop every PROGRESS_CYCLES cycles (long runs in test workers, progress bars). */
export async function driveAsync(f: Filter, o: DriveOptions): Promise<DriveResult> {
  const it = driveSteps(f, o);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
