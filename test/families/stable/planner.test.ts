import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/resolve.js';
import { foundAtAge, foundCurve, stablePoint } from '../../../src/families/stable/analysis.js';
import { planStable, stableBlockRams } from '../../../src/families/stable/planner.js';
import type { StableDerived } from '../../../src/families/stable/types.js';
import { ConfigError } from '../../../src/util/errors.js';

describe('stable planner (sizeBy window: the age at which a duplicate is still found)', () => {
  it('foundAtAge (matrix powers) equals the stepped chain', () => {
    const sh = { k: 3, d: 2, cells: 2048, cellsPerWord: 8, P: 22 };
    const ages = [0, 1, 7, 100, 577, 3000];
    const stepped = foundCurve(sh, ages);
    ages.forEach((j, i) => expect(foundAtAge(sh, j)).toBeCloseTo(stepped[i]!.found, 12));
  });

  for (const [window, fp, prob, target] of [
    [1000, 0.02, 0.99, undefined],
    [300, 0.05, 0.9, 'ice40-hx8k'],
  ] as const) {
    it(`window ${window}, fp ${fp}, find probability ${prob}${target ? `, ${target}` : ''}: meets both, and half the cells would not`, () => {
      const p = planStable({ filter: 'stable', window, fp, target, extra: { findProbability: prob } });
      const c = p.winner.config;
      expect(p.winner.rejected).toBeNull();
      expect(stablePoint(c).fp).toBeLessThanOrEqual(fp);
      expect(foundAtAge(c, window)).toBeGreaterThanOrEqual(prob);
      if (c.cells / 2 >= 2 * c.cellsPerWord)
        expect(foundAtAge({ ...c, cells: c.cells / 2 }, window)).toBeLessThan(prob);
      expect(stablePoint({ ...c, P: c.P - 1 }).fp).toBeGreaterThan(fp);
      if (target) expect(stableBlockRams(c)).toBeLessThanOrEqual(32);
    });
  }

  it('a config with window and fp is planned through resolve; sizes beside them are refused naming the field', () => {
    const f = resolveConfig(
      { name: 'pl', filter: 'stable', window: 500, fp: 0.05, findProbability: 0.95, keyBits: 64, seed: 3 },
      'cfg',
    );
    const c = f.config as StableDerived;
    expect(c.planned).toEqual({ window: 500, fp: 0.05, findProbability: 0.95 });
    expect(foundAtAge(c, 500)).toBeGreaterThanOrEqual(0.95);
    expect(() =>
      resolveConfig({ name: 'pl', filter: 'stable', window: 500, fp: 0.05, P: 3, keyBits: 64, seed: 3 }, 'cfg'),
    ).toThrow(/^cfg: field 'P': /);
    expect(() => resolveConfig({ name: 'pl', filter: 'stable', window: 500, keyBits: 64, seed: 3 }, 'cfg')).toThrow(
      /^cfg: field 'fp': /,
    );
    expect(() =>
      resolveConfig({ name: 'pl', filter: 'stable', window: 10_000_000, fp: 1e-9, keyBits: 64, seed: 3 }, 'cfg'),
    ).toThrow(ConfigError);
  });
});
