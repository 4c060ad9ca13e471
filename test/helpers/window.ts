/**
 * The no-false-negative run of a preset: test-and-insert (and the family's membership mix) over
 * three windows of keys; every queried key of the window must be found. Runs of up to 40 000 ops
 * run in the fast tier (conformance/stream.test.ts), larger ones in window.slow.test.ts.
 */
import { expect, it } from 'vitest';
import type { Filter } from '../../src/families/filter.js';
import { driveAsync, keysOf } from '../../src/verify/stream.js';
import { uniformWorkload } from '../../src/model/workloads.js';

/** The run's size, and whether it is long (full tier only); null when the family promises no window. */
export function windowRun(f: Filter): { ops: number; long: boolean } | null {
  if (f.window() === null) return null;
  const ops = 3 * keysOf(f) + 1000;
  return { ops, long: ops > 40_000 };
}

export function noFalseNegatives(f: Filter): void {
  const window = f.window();
  const mix = f.membershipMix();
  const keys = keysOf(f);
  it(`${f.name}: no false negative for any key of the last ${window} inserts`, async () => {
    const r = await driveAsync(f, {
      ops: 3 * keys + 1000,
      seed: 3,
      mix,
      workload: uniformWorkload(f.config.keyBits, 2 * keys),
      exactWindow: true,
    });
    expect(r.finished, r.stopReason ?? '').toBe(true);
    expect(r.window!.inWindow).toBeGreaterThan(Math.min(keys, r.ops) / 4);
    expect(r.window!.falseNegatives).toBe(0);
    expect(r.mismatches).toEqual([]);
  });
}
