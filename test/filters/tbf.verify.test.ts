/**
 * `verify` on every TBF/BTBF preset, 10^5 ops, with and without back-pressure: the reference
 * model, the compiled simulator and Verilator agree on every response (hit, λx, cx and the
 * decision) and every port every cycle, and every timer equals the model's at the end. Icarus
 * joins on a shorter run.
 */
import { describe, expect, it } from 'vitest';
import { deriveTbf } from '../../src/families/tbf/config.js';
import { loadPreset, presetNamesOf } from '../../src/presets/index.js';
import { verifyTbf } from '../../sim/verify/tbf.js';

const MIX = { query: 4, insert: 4, testAndInsert: 2, clear: 0.0002 };

describe('verify every TBF/BTBF preset (model ≡ simulator ≡ Verilator, timers ≡ model)', () => {
  for (const name of presetNamesOf('tbf', 'btbf')) {
    for (const backpressure of [0, 0.3]) {
      it(`${name}, 10^5 ops, back-pressure ${backpressure}`, async () => {
        const c = deriveTbf(loadPreset(name));
        const r = await verifyTbf(c, { ops: 100_000, seed: 23, backpressure, idle: 0.05, mix: MIX });
        expect(r.drive.responses).toBe(100_000);
        expect(r.drive.modelMismatches).toEqual([]);
        expect(r.memory.mismatches).toEqual([]);
        expect(r.memory.timers).toBe(c.k * c.timersPerBank);
        expect(r.rtl.map((x) => [x.engines[1], x.count])).toEqual([['verilator', 0]]);
        expect(r.drive.wraps).toBeGreaterThan(0);
        expect(r.mismatches).toBe(0);
      });
    }
  }

  it('btbf_k3_w256_b8_decision: Icarus agrees too (5000 ops)', async () => {
    const c = deriveTbf(loadPreset('btbf_k3_w256_b8_decision'));
    const r = await verifyTbf(c, { ops: 5000, seed: 3, backpressure: 0.2, idle: 0.05, mix: MIX, icarus: true });
    expect(r.rtl.map((x) => [x.engines[1], x.count])).toEqual([
      ['verilator', 0],
      ['icarus', 0],
    ]);
    expect(r.mismatches).toBe(0);
  });
});
