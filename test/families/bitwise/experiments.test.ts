/** The bitwise experiments measure the same on the RTL (compiled simulator) as on the model. */
import { describe, expect, it } from 'vitest';
import { zipfRun } from '../../../src/families/bitwise/experiments.js';
import { loadConfig } from '../../../src/config/resolve.js';
import type { BitwiseDerived } from '../../../src/families/bitwise/types.js';

describe('bitwise experiments', () => {
  for (const preset of ['bitwise_l3_w448', 'bitwise_l6_w1'])
    it(`${preset}: a Zipf stream gives the same counts on the RTL as on the model`, () => {
      const c = loadConfig(preset).config as BitwiseDerived;
      const o = { seed: 4, scale: 0.05, params: { insertsPerItem: '3' } };
      const model = zipfRun(c, { ...o, engine: 'model' }, 1.0);
      const sim = zipfRun(c, { ...o, engine: 'sim' }, 1.0);
      expect(sim.items).toEqual(model.items);
      expect(sim.probeHits).toBe(model.probeHits);
      expect(model.items.some((it) => it.count !== it.f)).toBe(true); // errors do occur
    });
});
