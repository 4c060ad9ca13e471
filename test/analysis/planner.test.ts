import { describe, expect, it } from 'vitest';
import { falsePositiveRate, peakNpwsRate, realFillRatios } from '../../src/families/apbf/analysis.js';
import { blockRamsFor, plan, planConfig, type PlanConstraints } from '../../src/families/apbf/planner.js';
import { ConfigError, deriveApbf } from '../../src/families/apbf/config.js';
import { Rng } from '../../src/util/rng.js';

/** Recompute a plan's promises from its config alone, independent of the planner's numbers. */
function check(k: PlanConstraints, cfg: Record<string, unknown>): void {
  const c = deriveApbf(cfg);
  const r = realFillRatios(c.k, c.l, c.segmentBits, c.generation, c.blockBits, c.bitsPerBlock);
  expect(c.window).toBeGreaterThanOrEqual(k.window);
  expect(falsePositiveRate(r, c.k, c.l)).toBeLessThanOrEqual(k.fp);
  if (k.maxNpws !== undefined) expect(peakNpwsRate(c.k, c.l, r[c.k + c.l - 1]!)).toBeLessThanOrEqual(k.maxNpws);
  if (k.maxSlack !== undefined) expect(c.slack).toBeLessThanOrEqual(k.maxSlack);
  if (k.target === 'ice40-hx8k') expect(blockRamsFor(c, 'ice40-hx8k')).toBeLessThanOrEqual(32);
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
        ...(rng.float() < 0.5 ? { maxNpws: 0.05 + rng.float() * 0.6 } : {}),
        ...(rng.float() < 0.3 ? { maxSlack: 2000 + Math.floor(rng.float() * 50_000) } : {}),
        ...(rng.float() < 0.4 ? { target: 'ice40-hx8k' as const } : {}),
      };
      try {
        const p = plan(k);
        check(k, planConfig(p));
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
    const k: PlanConstraints = { filter: 'apbf', window: 3000, fp: 0.01 };
    const p = plan(k);
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
    expect(() => plan({ filter: 'apbf', window: 5000, fp: 1e-6, target: 'ice40-hx8k' })).toThrow(/--target binds/);
    expect(() => plan({ filter: 'apbf', window: 5000, fp: 1e-3, maxNpws: 0.001 })).toThrow(/--max-npws binds/);
  });

  it('a config with window and fp is planned, and records what the planner chose', () => {
    const c = deriveApbf({ name: 'auto', filter: 'apbf', window: 2000, fp: 0.01, keyBits: 64, seed: 1 });
    expect(c.window).toBeGreaterThanOrEqual(2000);
    expect(c.planned).toEqual({ window: 2000, fp: 0.01, maxNpws: undefined, maxSlack: undefined });
    expect(() => deriveApbf({ name: 'x', filter: 'apbf', window: 2000, keyBits: 64, seed: 1 })).toThrow(
      /field 'k': give k and l, or window and fp/,
    );
  });
});
