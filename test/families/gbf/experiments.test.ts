/**
 * The GBF's experiments on the RTL: with --engine sim, gbf-decay and gbf-posterior run the
 * pipeline in the compiled simulator and measure exactly what the model measures (the pipeline
 * equals the model bit for bit), and their checks against the analytics pass.
 */
import { describe, expect, it } from 'vitest';
import { COMMON_DEFAULTS, runExperiment } from '../../../src/experiments/index.js';

describe('GBF experiments on the model and on the RTL', () => {
  for (const name of ['gbf-decay', 'gbf-posterior'])
    it(`${name}: the simulator's series equal the model's; every check passes`, () => {
      const common = { ...COMMON_DEFAULTS, scale: 0.05 };
      const model = runExperiment(name, { ...common, engine: 'model' }, {}, undefined, true);
      const sim = runExperiment(name, { ...common, engine: 'sim' }, {}, undefined, true);
      expect(sim.series).toEqual(model.series);
      for (const c of sim.checks ?? []) expect(c.ok, c.what).toBe(true);
    });
});
