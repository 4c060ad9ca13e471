/** The A² planner: the seed's k_a* and κ_a*, checked with the exact worst-case rate. */
import { describe, expect, it } from 'vitest';
import { planA2 } from '../../../src/families/a2/planner.js';
import { fpWorst, optimalK } from '../../../src/families/a2/analysis.js';
import { ConfigError } from '../../../src/util/errors.js';

const plan = (window: number, fp: number, target?: 'ice40-hx8k') =>
  planA2({ filter: 'a2', window, fp, extra: {}, ...(target ? { target } : {}) });

describe('A² planner', () => {
  for (const [w, p] of [
    [1000, 0.01],
    [2000, 0.001],
    [50, 0.1],
    [100000, 1e-4],
  ] as const) {
    it(`window ${w}, fp ${p}: a config with κ ≥ w, k ∈ {k*, k*+1}, meeting fp at its worst moment`, () => {
      const r = plan(w, p);
      const c = r.winner.config;
      expect(c.kappa).toBeGreaterThanOrEqual(w);
      expect([optimalK(p), optimalK(p) + 1]).toContain(c.k);
      expect(fpWorst(c.k, c.bankBits, c.kappa)).toBeLessThanOrEqual(p);
      expect(r.winner.fp).toBe(fpWorst(c.k, c.bankBits, c.kappa));
    });
  }

  it('with a target, the fewest block RAMs that fit; none fits names the binding constraint', () => {
    const r = plan(2000, 0.001, 'ice40-hx8k');
    expect(r.winner.blockRams).toBeLessThanOrEqual(32);
    expect(() => plan(200000, 1e-5, 'ice40-hx8k')).toThrow(/--target binds/);
  });

  it('a window too short to flush a half is refused', () => {
    expect(() => plan(5, 0.1)).toThrow(ConfigError);
  });
});
