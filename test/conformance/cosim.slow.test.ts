/**
 * Conformance, part 4 (full tier): `verify` on every preset of every registered family — the
 * reference model, the compiled simulator and Verilator agree on every response and on every
 * port every cycle, and the memories equal the model's state after the stream drained — with no
 * back-pressure, some, and nearly all the time (0.9, 0.99: the run must still finish every op).
 * Icarus joins on the iCE40 presets. `make test` runs it on the presets that cover every pipeline
 * shape and target (test/helpers/presets.ts), with the back-pressure 0.3 run shortened to 20 000
 * ops and Icarus on the iCE40 presets among the filter-value cover; `make test-full` on every
 * preset, in full.
 */
import { describe, expect, it } from 'vitest';
import { verifyFilter } from '../../src/verify/index.js';
import { fullTier, slowTierPresets } from '../helpers/presets.js';

const tier = slowTierPresets();
const full = fullTier();
const onIcarus = new Set(slowTierPresets(process.env, 'filter').filters.map((f) => f.name));

const RUNS: { ops: number; backpressure: number }[] = [
  { ops: 100_000, backpressure: 0 },
  { ops: full ? 100_000 : 20_000, backpressure: 0.3 },
  { ops: 5_000, backpressure: 0.9 },
  { ops: 3_000, backpressure: 0.99 },
];

describe(`verify ${tier.which} (model ≡ simulator ≡ Verilator, memories ≡ model)`, () => {
  for (const f of tier.filters) {
    for (const { ops, backpressure } of RUNS) {
      it(`${f.name}, ${ops} ops, back-pressure ${backpressure}`, async () => {
        const r = await verifyFilter(f, { ops, seed: 17, backpressure, idle: 0.05 });
        expect(r.drive.finished, r.drive.stopReason ?? '').toBe(true);
        expect(r.drive.ops).toBe(ops);
        expect(r.drive.responses).toBe(ops);
        expect(r.drive.mismatches).toEqual([]);
        expect(r.memory.checked).toBeGreaterThan(0);
        expect(r.memory.mismatches).toEqual([]);
        expect(r.rtl.map((x) => [x.engines[1], x.count])).toEqual([['verilator', 0]]);
        if (backpressure === 0 && f.aging()) expect(r.drive.agingEvents).toBeGreaterThan(0);
        expect(r.mismatches).toBe(0);
        expect(r.ok).toBe(true);
      });
    }
    if (f.config.target.startsWith('ice40') && onIcarus.has(f.name))
      it(`${f.name}: Icarus agrees too (2000 ops, back-pressure 0.2)`, async () => {
        const r = await verifyFilter(f, { ops: 2000, seed: 3, backpressure: 0.2, idle: 0.05, icarus: true });
        expect(r.rtl.map((x) => [x.engines[1], x.count])).toEqual([
          ['verilator', 0],
          ['icarus', 0],
        ]);
        expect(r.ok).toBe(true);
      });
  }
});
