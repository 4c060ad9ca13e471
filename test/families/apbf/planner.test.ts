import { describe, expect, it } from 'vitest';
import { device } from '../../../src/device/index.js';
import { falsePositiveRate, peakNpwsRate, realFillRatios } from '../../../src/families/apbf/analysis.js';
import { apbfPlanConfig, blockRamsFor, planApbf } from '../../../src/families/apbf/planner.js';
import type { PlanConstraints } from '../../../src/families/types.js';
import { resolveConfig } from '../../../src/config/resolve.js';
import { deriveApbf } from '../../../src/families/apbf/config.js';
import { ConfigError } from '../../../src/util/errors.js';
import type { ApbfDerived } from '../../../src/families/apbf/types.js';
import { Rng } from '../../../src/util/rng.js';

/** Recompute a plan's promises from its config alone, independent of the planner's numbers. */
function check(k: PlanConstraints, cfg: Record<string, unknown>): void {
  const c = deriveApbf(cfg);
  const r = realFillRatios(c.k, c.l, c.segmentBits, c.generation, c.blockBits, c.bitsPerBlock);
  expect(c.window).toBeGreaterThanOrEqual(k.window);
  expect(falsePositiveRate(r, c.k, c.l)).toBeLessThanOrEqual(k.fp);
  if (k.extra.maxNpws !== undefined)
    expect(peakNpwsRate(c.k, c.l, r[c.k + c.l - 1]!)).toBeLessThanOrEqual(k.extra.maxNpws);
  if (k.extra.maxSlack !== undefined) expect(c.slack).toBeLessThanOrEqual(k.extra.maxSlack);
  if (k.target) expect(blockRamsFor(c, k.target)).toBeLessThanOrEqual(device(k.target).capacity!.brams);
}

describe('planner', () => {
  it('plans always satisfy their constraints (random constraints)', () => {
    const rng = new Rng(2024);
    let planned = 0;
    let impossible = 0;
    for (let i = 0; i < 30; i++) {
      const k: PlanConstraints = {
        filter: i % 5 === 4 ? 'apbbf' : 'apbf',
        window: 200 + Math.floor(rng.float() * 20_000),
        fp: 10 ** -(1 + rng.float() * 3.5),
        extra: {
          ...(rng.float() < 0.5 ? { maxNpws: 0.05 + rng.float() * 0.6 } : {}),
          ...(rng.float() < 0.3 ? { maxSlack: 2000 + Math.floor(rng.float() * 50_000) } : {}),
        },
        ...(rng.float() < 0.4 ? { target: 'ice40-hx8k' as const } : {}),
      };
      try {
        const p = planApbf(k);
        check(k, apbfPlanConfig(p));
        planned++;
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        expect((e as Error).message).toMatch(/--(fp|max-npws|max-slack|target) binds/);
        impossible++;
      }
    }
    expect(planned).toBeGreaterThan(15);
    expect(planned + impossible).toBe(30);
  });

  it('the winner uses the least memory among the candidates that qualify', () => {
    const k: PlanConstraints = { filter: 'apbf', window: 3000, fp: 0.01, extra: {} };
    const p = planApbf(k);
    // Every config with strictly less memory fails a constraint.
    for (let kk = 1; kk <= 32; kk++) {
      for (let l = 1; l <= 96; l++) {
        const c = deriveApbf({
          name: 'x',
          filter: 'apbf',
          k: kk,
          l,
          generation: Math.ceil(3000 / l),
          keyBits: 64,
          seed: 1,
        });
        if ((c.k + c.l + c.spares) * c.segmentBits < p.winner.memoryBits) {
          const r = realFillRatios(c.k, c.l, c.segmentBits, c.generation);
          expect(falsePositiveRate(r, c.k, c.l)).toBeGreaterThan(0.01);
        }
      }
    }
  });

  it('names the binding constraint when nothing qualifies', () => {
    expect(() => planApbf({ filter: 'apbf', window: 5000, fp: 1e-6, target: 'ice40-hx8k', extra: {} })).toThrow(
      /--target binds/,
    );
    expect(() => planApbf({ filter: 'apbf', window: 5000, fp: 1e-3, extra: { maxNpws: 0.001 } })).toThrow(
      /--max-npws binds/,
    );
  });

  it('a config with window and fp is planned, and records what the planner chose', () => {
    const c = resolveConfig({ name: 'auto', filter: 'apbf', window: 2000, fp: 0.01, keyBits: 64, seed: 1, tagBits: 5 })
      .config as ApbfDerived;
    expect(c.window).toBeGreaterThanOrEqual(2000);
    expect(c.tagBits).toBe(5);
    expect(c.planned).toEqual({ window: 2000, fp: 0.01, maxNpws: undefined, maxSlack: undefined });
    expect(() => resolveConfig({ name: 'x', filter: 'apbf', window: 2000, keyBits: 64, seed: 1 }, 'x.json')).toThrow(
      /^x\.json: field 'k': give k and l, or window and fp/,
    );
    expect(() =>
      resolveConfig({ name: 'x', filter: 'apbf', window: 2000, fp: 0.01, sliceBits: 4096, keyBits: 64, seed: 1 }),
    ).toThrow(/field 'window': with window and fp the planner chooses every size; leave out sliceBits/);
    expect(() =>
      resolveConfig({ name: 'x', filter: 'apbf', k: 4, l: 3, fp: 0.01, sliceBits: 4096, keyBits: 64, seed: 1 }),
    ).toThrow(/field 'fp': only without k and l/);
  });
});
