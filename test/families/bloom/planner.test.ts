/**
 * The set filters' planner (sizeBy 'items'): its plans keep their promises (recomputed from the
 * written config alone), the winner is the least memory (or the fewest block RAMs on a target)
 * among the configs that qualify, configs with `items` and `fp` resolve through it, and the
 * binding constraint is named when nothing fits.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/resolve.js';
import { device } from '../../../src/device/index.js';
import { fpExact } from '../../../src/families/bloom/analysis.js';
import { deriveBloom } from '../../../src/families/bloom/config.js';
import { blockRamsFor, bloomPlanConfig, bloomPlanner, planBloom } from '../../../src/families/bloom/planner.js';
import type { BloomDerived } from '../../../src/families/bloom/types.js';
import type { PlanConstraints } from '../../../src/families/types.js';
import { ConfigError } from '../../../src/util/errors.js';
import { Rng } from '../../../src/util/rng.js';

const FILTERS = ['basic', 'partitioned', 'blocked'] as const;

/** The plan's promises, from its config alone. */
function check(k: PlanConstraints, cfg: Record<string, unknown>): BloomDerived {
  const c = deriveBloom(cfg);
  expect(c.filter).toBe(k.filter);
  expect(c.items).toBe(k.window);
  expect(fpExact(c, k.window)).toBeLessThanOrEqual(k.fp);
  if (k.target) expect(blockRamsFor(c, k.target)).toBeLessThanOrEqual(device(k.target).capacity!.brams);
  return c;
}

/** Every config of the planner's shape space (brute force) that holds n items at fp <= p. */
function qualifying(filter: (typeof FILTERS)[number], n: number, p: number): BloomDerived[] {
  const out: BloomDerived[] = [];
  for (let e = 1; e <= 20; e++)
    for (let kk = 1; kk <= 32; kk++) {
      const shapes =
        filter === 'basic'
          ? [{ k: kk, bits: 2 ** e }]
          : filter === 'partitioned'
            ? [{ k: kk, sliceBits: 2 ** e }]
            : kk >= 2 && kk <= 16 && Number.isInteger(Math.log2(kk))
              ? [32, 64, 128, 256, 512, 1024, 2048, 4096].map((B) => ({ blockBits: B, bitsPerBlock: kk, bits: 2 ** e }))
              : [];
      for (const s of shapes) {
        try {
          const c = deriveBloom({ name: 'x', filter, items: n, keyBits: 64, seed: 1, ...s });
          if (fpExact(c, n) <= p) out.push(c);
        } catch {
          // not a valid shape
        }
      }
    }
  expect(out.length).toBeGreaterThan(0);
  return out;
}

describe('planner', () => {
  it('plans satisfy their constraints (random items, fp, targets)', () => {
    const rng = new Rng(77);
    let planned = 0;
    let impossible = 0;
    for (let i = 0; i < 30; i++) {
      const k: PlanConstraints = {
        filter: FILTERS[i % 3]!,
        window: 100 + Math.floor(rng.float() * 200_000),
        fp: 10 ** -(1 + rng.float() * 5),
        extra: {},
        ...(rng.float() < 0.4 ? { target: 'ice40-hx8k' as const } : {}),
      };
      try {
        check(k, bloomPlanConfig(planBloom(k)));
        planned++;
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        expect((e as Error).message).toMatch(/--(fp|target) binds/);
        impossible++;
      }
    }
    expect(planned).toBeGreaterThan(15);
    expect(impossible).toBeGreaterThan(0);
  });

  for (const filter of FILTERS)
    it(`${filter}: the winner has the least memory of every config that meets fp (then the fewest k)`, () => {
      const k: PlanConstraints = { filter, window: 3000, fp: 0.01, extra: {} };
      const p = planBloom(k);
      const w = p.winner.config;
      for (const c of qualifying(filter, 3000, 0.01)) {
        expect(c.bits).toBeGreaterThanOrEqual(w.bits);
        if (c.bits === w.bits && filter !== 'blocked') expect(c.k).toBeGreaterThanOrEqual(w.k);
      }
      check(k, bloomPlanConfig(p));
    });

  it('on a target the winner uses the fewest block RAMs of every config that meets fp', () => {
    const k: PlanConstraints = { filter: 'partitioned', window: 1000, fp: 0.01, target: 'ice40-hx8k', extra: {} };
    const p = planBloom(k);
    check(k, bloomPlanConfig(p));
    const all = qualifying('partitioned', 1000, 0.01);
    for (const c of all) expect(blockRamsFor(c, 'ice40-hx8k')).toBeGreaterThanOrEqual(p.winner.blockRams);
    // Least memory and fewest block RAMs are different objectives here: 5 slices of 2 Kbit (10 Kbit,
    // 5 block RAMs) against 4 slices of 4 Kbit (16 Kbit, 4 block RAMs).
    const free = planBloom({ ...k, target: undefined });
    expect(free.winner.memoryBits).toBeLessThan(p.winner.memoryBits);
    expect(blockRamsFor(free.winner.config, 'ice40-hx8k')).toBeGreaterThan(p.winner.blockRams);
  });

  it('names the binding constraint when nothing fits', () => {
    expect(() => planBloom({ filter: 'basic', window: 1_000_000, fp: 1e-6, target: 'ice40-hx8k', extra: {} })).toThrow(
      /--target binds/,
    );
    expect(() => planBloom({ filter: 'basic', window: 10, fp: 1e-300, extra: {} })).toThrow(/--fp binds/);
    expect(() => planBloom({ filter: 'basic', window: 0, fp: 0.01, extra: {} })).toThrow(/--items/);
  });

  it('a config with items and fp resolves through the planner and records the intent', () => {
    const f = resolveConfig({ name: 'p', filter: 'blocked', items: 5000, fp: 0.01, keyBits: 64, seed: 3 }, 'cfg.json');
    const c = f.config as BloomDerived;
    expect(c.planned).toEqual({ items: 5000, fp: 0.01 });
    expect(c.items).toBe(5000);
    expect(fpExact(c, 5000)).toBeLessThanOrEqual(0.01);
    expect((f.manifest().parameters as Record<string, unknown>).planned).toEqual({ items: 5000, fp: 0.01 });
  });

  it('intent: mixing items/fp with sizes is refused naming the field', () => {
    const fail = (field: string, msg: string): never => {
      throw new ConfigError(`field '${field}': ${msg}`);
    };
    expect(bloomPlanner.intent({ filter: 'basic', k: 4, bits: 1024 }, fail)).toBeNull();
    expect(() => bloomPlanner.intent({ filter: 'basic', fp: 0.1, bits: 1024, items: 3 }, fail)).toThrow(
      /field 'fp': .*leave out bits/,
    );
    expect(() => bloomPlanner.intent({ filter: 'basic', fp: 0.1 }, fail)).toThrow(/field 'items'/);
  });
});
