/**
 * `verify` three ways with removes (full tier): the conformance files drive the family's mix,
 * which cannot hold remove (MI configs have no remove op and the mix is the family's); here
 * every preset with a remove op runs the same checks with removes in the stream — model ≡
 * simulator on every response, simulator ≡ Verilator on every port every cycle (and Icarus on
 * the iCE40 presets), memories ≡ model — with no back-pressure, some, and nearly all the time,
 * on a universe small enough for removes of present keys, saturation and underflow.
 */
import { describe, expect, it } from 'vitest';
import { verifyFilter } from '../../../src/verify/index.js';
import { uniformWorkload } from '../../../src/model/workloads.js';
import { presetFilters } from '../../../src/config/resolve.js';

const RUNS = [
  { ops: 100_000, backpressure: 0, universe: 2048 },
  { ops: 100_000, backpressure: 0.3, universe: 256 },
  { ops: 5_000, backpressure: 0.9, universe: 64 },
];

describe('verify with removes (model ≡ simulator ≡ Verilator, memories ≡ model)', () => {
  for (const f of presetFilters().filter((x) => x.family.id === 'counting' && 'remove' in x.protocol().ops)) {
    const mix = { query: 3, insert: 4, testAndInsert: 2, remove: 3, clear: 0.0002 };
    for (const { ops, backpressure, universe } of RUNS)
      it(`${f.name}, ${ops} ops with removes over ${universe} keys, back-pressure ${backpressure}`, async () => {
        const r = await verifyFilter(f, {
          ops,
          seed: 23,
          backpressure,
          idle: 0.05,
          mix,
          workload: uniformWorkload(f.config.keyBits, universe),
        });
        expect(r.drive.finished, r.drive.stopReason ?? '').toBe(true);
        expect(r.drive.responses).toBe(ops);
        expect(r.drive.mismatches).toEqual([]);
        expect(r.memory.checked).toBeGreaterThan(0);
        expect(r.memory.mismatches).toEqual([]);
        expect(r.rtl.map((x) => [x.engines[1], x.count])).toEqual([['verilator', 0]]);
        expect(r.ok).toBe(true);
      });
    if (f.config.target.startsWith('ice40'))
      it(`${f.name}: Icarus agrees too with removes (2000 ops, back-pressure 0.2)`, async () => {
        const r = await verifyFilter(f, {
          ops: 2000,
          seed: 5,
          backpressure: 0.2,
          idle: 0.05,
          mix,
          workload: uniformWorkload(f.config.keyBits, 128),
          icarus: true,
        });
        expect(r.rtl.map((x) => [x.engines[1], x.count])).toEqual([
          ['verilator', 0],
          ['icarus', 0],
        ]);
        expect(r.ok).toBe(true);
      });
  }
});
