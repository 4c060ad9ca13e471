/**
 * `verify` on every preset, 10^5 ops, with and without back-pressure: the reference model, the
 * compiled simulator and Verilator agree on every response / every port every cycle, and the
 * simulator's block RAMs equal the model's bit arrays at the end.
 */
import { describe, expect, it } from 'vitest';
import { deriveApbf } from '../../src/families/apbf/config.js';
import { loadPreset, presetNamesOf } from '../../src/presets/index.js';
import { verifyApbf } from '../../sim/verify/apbf.js';

const MIX = { query: 4, insert: 4, testAndInsert: 2, tick: 0.004, clear: 0.0002 };

describe('verify every preset (model ≡ simulator ≡ Verilator, memories ≡ model)', () => {
  for (const name of presetNamesOf('apbf', 'apbbf')) {
    for (const backpressure of [0, 0.3]) {
      it(`${name}, 10^5 ops, back-pressure ${backpressure}`, async () => {
        const c = deriveApbf(loadPreset(name));
        const r = await verifyApbf(c, { ops: 100_000, seed: 17, backpressure, idle: 0.05, mix: MIX });
        expect(r.drive.ops).toBe(100_000);
        expect(r.drive.responses).toBe(100_000);
        expect(r.drive.modelMismatches).toEqual([]);
        expect(r.memory.mismatches).toEqual([]);
        expect(r.memory.words).toBe((c.k + c.l) * c.bitsPerBlock * c.columnDepth);
        expect(r.rtl.map((x) => [x.engines[1], x.count])).toEqual([['verilator', 0]]);
        expect(r.drive.model.shifts).toBeGreaterThan(0);
        expect(r.mismatches).toBe(0);
      });
    }
  }
});
