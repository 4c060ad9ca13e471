import { describe, expect, it } from 'vitest';
import { deriveStable } from '../../../src/families/stable/config.js';
import { buildStable } from '../../../src/families/stable/rtl.js';
import { LATENCY } from '../../../src/families/stable/params.js';
import type { StableDerived } from '../../../src/families/stable/types.js';
import { uniformWorkload } from '../../../src/model/workloads.js';
import { driveConfig, presetConfig, presetsOf } from '../../helpers/families.js';

const preset = (n: string): StableDerived => presetConfig<StableDerived>(n);

describe('Stable Bloom filter pipelines', () => {
  for (const name of presetsOf('stable')) {
    it(`${name}: one op per cycle (every insert decrementing) with 0 stall cycles and the model's answers`, () => {
      const c = preset(name);
      const ops = 6000;
      const r = driveConfig(c, { ops, seed: 9, mix: { query: 1, insert: 3, testAndInsert: 2 } });
      expect(r.finished).toBe(true);
      expect(r.stallCycles).toBe(0);
      expect(r.mismatches).toEqual([]);
      expect(r.lastAccept - r.firstAccept + 1).toBe(ops);
      expect(r.cycles).toBeLessThanOrEqual(ops + c.depth + LATENCY + 30);
      expect(r.model.compareMemories((n, a) => r.sim.readMemory(n, a)).mismatches).toEqual([]);
    });
  }

  it('without write forwarding, back-to-back ops on one word give wrong answers and memories (the verification is not vacuous)', () => {
    for (const name of presetsOf('stable')) {
      const c = preset(name);
      const workload = () => uniformWorkload(c.keyBits, 6); // tiny universe: same-word ops back to back
      const mix = { query: 1, insert: 2, testAndInsert: 2 };
      const good = driveConfig(c, { ops: 3000, seed: 4, workload: workload(), mix });
      expect(good.mismatches).toEqual([]);
      expect(good.model.compareMemories((n, a) => good.sim.readMemory(n, a)).count).toBe(0);
      const bad = driveConfig(c, {
        ops: 3000,
        seed: 4,
        workload: workload(),
        mix,
        design: buildStable(c, { forwarding: false }),
      });
      const wrong = bad.mismatchCount + bad.model.compareMemories((n, a) => bad.sim.readMemory(n, a)).count;
      expect(wrong, name).toBeGreaterThan(0);
    }
  });

  it('P = 0 gives no false negative for any key since the last clear (window Infinity)', () => {
    const c = deriveStable({ name: 'p0', filter: 'stable', k: 3, d: 1, cells: 1024, P: 0, keyBits: 64, seed: 5 });
    const keys = Math.floor(1024 * Math.LN2);
    const r = driveConfig(c, {
      ops: 3 * keys,
      seed: 3,
      mix: { testAndInsert: 1 },
      workload: uniformWorkload(c.keyBits, 2 * keys),
      exactWindow: true,
    });
    expect(r.finished).toBe(true);
    expect(r.window!.inWindow).toBeGreaterThan(keys / 2);
    expect(r.window!.falseNegatives).toBe(0);
    expect(r.mismatches).toEqual([]);
  });

  it('the clear op restores the empty filter and the generator seeds (ops after a clear match a fresh model)', () => {
    const c = preset('stable_d2_k3');
    const r = driveConfig(c, {
      ops: 5000,
      seed: 12,
      mix: { query: 3, insert: 3, testAndInsert: 3, clear: 0.01 },
      backpressure: 0.2,
    });
    expect(r.finished).toBe(true);
    expect(r.mismatches).toEqual([]);
    expect(r.model.compareMemories((n, a) => r.sim.readMemory(n, a)).mismatches).toEqual([]);
  });
});
