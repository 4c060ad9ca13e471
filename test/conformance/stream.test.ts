/**
 * Conformance, part 3: every preset of every registered family in the compiled simulator,
 * against its reference model, through the one stream driver:
 * - a random stream of every op, with idle cycles and back-pressure: every response equals the
 *   model's, every memory equals the model's state after the stream drained;
 * - one request every cycle across the family's aging events (generation shifts, wraps of T+):
 *   0 stall cycles, exactly one op accepted per cycle;
 * - test-and-insert over several windows: no false negative for a key of the window, where the
 *   family promises none (here the runs of up to 40 000 ops, the longer ones — the large
 *   ECP5/Xilinx presets — in window.slow.test.ts).
 * (Verilator and Icarus join in cosim.slow.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { presetFilters } from '../../src/config/resolve.js';
import { driveAsync } from '../../src/verify/stream.js';
import { noFalseNegatives, windowRun } from '../helpers/window.js';

describe('model ≡ simulator on every preset', () => {
  for (const f of presetFilters()) {
    it(`${f.name}: random ops, back-pressure 0.3: responses and memories equal the model's`, async () => {
      const r = await driveAsync(f, { ops: 4000, seed: 31, backpressure: 0.3, idle: 0.05 });
      expect(r.finished, r.stopReason ?? '').toBe(true);
      expect(r.ops).toBe(4000);
      expect(r.responses).toBe(4000);
      expect(r.mismatches).toEqual([]);
      const m = r.model.compareMemories((name, a) => r.sim.readMemory(name, a));
      expect(m.checked).toBeGreaterThan(0);
      expect(m.mismatches).toEqual([]);
    });

    const aging = f.aging();
    if (aging)
      it(`${f.name}: one op per cycle across >= ${aging.run.minEvents} ${aging.name}, 0 stall cycles`, async () => {
        const r = await driveAsync(f, { ops: aging.run.ops, seed: 5, mix: aging.run.mix });
        expect(r.finished, r.stopReason ?? '').toBe(true);
        expect(r.agingEvents).toBeGreaterThanOrEqual(aging.run.minEvents);
        expect(r.stallCycles).toBe(0);
        expect(r.lastAccept - r.firstAccept + 1).toBe(aging.run.ops);
        expect(r.mismatches).toEqual([]);
      });

    if (windowRun(f)?.long === false) noFalseNegatives(f);
  }
});
