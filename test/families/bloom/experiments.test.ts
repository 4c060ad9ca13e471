/**
 * The set-fp experiment: on the model and on the RTL in the compiled simulator its checks pass
 * (the exact fp within the 99 % interval of the measured one for every variant; the e^{−kn/m}
 * form rejected for 32-bit blocks), and the RTL measures exactly what the model measures (the
 * same keys, the same hashes, the same bits).
 */
import { describe, expect, it } from 'vitest';
import { fpExperiment } from '../../../src/families/bloom/experiments.js';

describe('set-fp experiment', () => {
  it('model and RTL: every check passes, and the measured series are identical', () => {
    const model = fpExperiment({ engine: 'model', seed: 1, scale: 0.5, params: {} });
    const sim = fpExperiment({ engine: 'sim', seed: 1, scale: 0.5, params: {} });
    for (const r of [model, sim]) {
      expect(r.checks!.length).toBe(9);
      for (const c of r.checks!) expect(c.ok, c.what).toBe(true);
      expect(r.series.filter((s) => s.kind === 'measured')).toHaveLength(4);
      expect(r.series.filter((s) => s.kind === 'analytic')).toHaveLength(8);
    }
    expect(sim.series).toEqual(model.series);
  });
});
