/**
 * Analytics against their sources and against measurement: the partitioned fp, Fan et al.'s
 * overflow bound (Summary Cache §V-C: 1.37·10^−15·m for 4-bit counters at the optimal k), the
 * exact binomial tail, the expected MS error; and the planner.
 */
import { describe, expect, it } from 'vitest';
import {
  binomialTail,
  collisionDistribution,
  countingFp,
  expectedMsError,
  expectedMsErrorDistinct,
  fanOverflowBound,
  overflowFigures,
} from '../../../src/families/counting/analysis.js';
import { deriveCounting } from '../../../src/families/counting/config.js';
import { CountingModel } from '../../../src/families/counting/model.js';
import { countingBlockRams, planCounting } from '../../../src/families/counting/planner.js';
import { analyzeCounting } from '../../../src/families/counting/summary.js';
import { ConfigError } from '../../../src/util/errors.js';
import { Rng } from '../../../src/util/rng.js';
import { distinctWorkload, zipfWorkload } from '../../../src/model/workloads.js';
import { presetConfig } from '../../helpers/families.js';
import type { CountingDerived } from '../../../src/families/counting/types.js';

const cfg = (patch: Record<string, unknown> = {}): CountingDerived =>
  deriveCounting({
    name: 'a',
    filter: 'counting',
    k: 4,
    counterBits: 4,
    cellsPerBank: 1024,
    keyBits: 64,
    seed: 3,
    ...patch,
  });

describe('false positives', () => {
  it("the libBf manual's formula with the partitioned layout, (1 − (1 − 1/c)^n)^k, matches the model", () => {
    const c = cfg({ remove: false });
    const m = new CountingModel(c);
    const n = 700;
    const w = distinctWorkload(64);
    const rng = new Rng(1);
    for (let i = 0; i < n; i++) m.insert(w.nextKey(rng));
    let fp = 0;
    const probes = 40_000;
    for (let i = 0; i < probes; i++) if (m.apply('query', w.nextKey(rng)).hit) fp++;
    const want = countingFp(n, c.cellsPerBank, c.k);
    const sigma = Math.sqrt((want * (1 - want)) / probes);
    expect(Math.abs(fp / probes - want)).toBeLessThan(4 * sigma);
    // At n = c ln 2 a bank is half full: fp ≈ 2^−k.
    expect(countingFp(Math.floor(1024 * Math.LN2), 1024, 4)).toBeCloseTo(1 / 16, 2);
  });
});

describe('counter overflow', () => {
  it("Fan et al.'s bound at the optimal k is m·(e ln 2 / 2^w)^(2^w): 1.37e-15·m for w = 4 (Summary Cache §V-C)", () => {
    const m = 1 << 20;
    const k = 4;
    const n = (m / k) * Math.LN2; // k = (m/n) ln 2
    expect(fanOverflowBound(n, m, k, 4) / m).toBeCloseTo(1.37e-15, 17);
    expect(fanOverflowBound(n, m, k, 4) / m).toBeCloseTo(((Math.E * Math.LN2) / 16) ** 16, 25);
  });

  it('the exact binomial tail equals a direct sum and lies below the bound', () => {
    const direct = (n: number, p: number, j: number): number => {
      let s = 0;
      for (let i = j; i <= n; i++) {
        let c = 1;
        for (let t = 0; t < i; t++) c = (c * (n - t)) / (t + 1);
        s += c * p ** i * (1 - p) ** (n - i);
      }
      return s;
    };
    for (const [n, p, j] of [
      [50, 0.1, 3],
      [200, 0.02, 4],
      [60, 0.5, 30],
      [10, 0.3, 0],
    ] as const)
      expect(binomialTail(n, p, j)).toBeCloseTo(direct(n, p, j), 12);
    const o = overflowFigures(709, 1024, 4, 4);
    expect(o.counterTail).toBeGreaterThan(0);
    expect(o.expectedOverflowing).toBeCloseTo(4096 * o.counterTail, 25);
    expect(o.unionBound).toBeLessThanOrEqual(o.fanBound);
  });

  it('with 2-bit counters the overflows the tail predicts happen in the model', () => {
    const c = cfg({ counterBits: 2, cellsPerBank: 256, remove: false });
    const n = 400;
    const o = overflowFigures(n, c.cellsPerBank, c.k, c.counterBits);
    let saturated = 0;
    const runs = 20;
    for (let r = 0; r < runs; r++) {
      const m = new CountingModel({ ...c, seed: r });
      const w = distinctWorkload(64, r * 1_000_000);
      const rng = new Rng(r);
      for (let i = 0; i < n; i++) if (m.insert(w.nextKey(rng)).overflow) saturated++;
    }
    // Every insert that finds a counter at 3 would take it to 4 = 2^w: the counters whose count
    // reaches 4 are each hit (count − 3) times past 3; at least as many events as counters.
    expect(saturated / runs).toBeGreaterThan(0.5 * o.expectedOverflowing);
  });
});

describe('expected MS count error', () => {
  it('the convolution of the true counts matches the model on a Zipf stream (mean over 6 hash seeds)', () => {
    const w = zipfWorkload(64, 800, 1.0);
    const rng = new Rng(4);
    const keys = Array.from({ length: 6000 }, () => w.nextKey(rng));
    const truth = new Map<bigint, number>();
    for (const key of keys) truth.set(key, (truth.get(key) ?? 0) + 1);
    const c = cfg({ counterBits: 16, cellsPerBank: 512, remove: false });
    let measured = 0;
    for (let seed = 0; seed < 6; seed++) {
      const m = new CountingModel({ ...c, seed });
      for (const key of keys) m.insert(key);
      let e = 0;
      for (const [key, f] of truth) e += m.query(key) - f;
      measured += e / truth.size / 6;
    }
    const analytic = expectedMsError([...truth.values()], c.cellsPerBank, c.k, c.counterBits);
    expect(Math.abs(measured - analytic)).toBeLessThan(0.1 * analytic);
  });

  it('the distribution of the other keys sums to 1, and one key inserted once among n distinct ones errs by Σ Pr(Bin(n−1, 1/c) ≥ t)^k', () => {
    const d = collisionDistribution([1, 2, 3, 1, 1], 0.3, 10);
    expect(d.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    const n = 709;
    const e = expectedMsErrorDistinct(n, 1024, 4, 4);
    const direct = expectedMsError(Array(n).fill(1), 1024, 4, 4);
    expect(e).toBeCloseTo(direct, 4);
    // To first order the error is the fp (one colliding key in every bank).
    expect(e).toBeGreaterThan(countingFp(n - 1, 1024, 4));
    expect(e).toBeLessThan(1.2 * countingFp(n - 1, 1024, 4));
  });
});

describe('analyze and plan', () => {
  it('analyze gives fp, the overflow figures and the MS error of a preset', () => {
    const a = analyzeCounting(presetConfig<CountingDerived>('counting_k4_w4'));
    expect(a.items).toBe(709);
    expect(a.fp).toBeCloseTo(countingFp(709, 1024, 4), 12);
    expect(a.window).toBeNull();
    expect(analyzeCounting(presetConfig<CountingDerived>('spectral_mi_k4_w4')).window).toBe(Infinity);
    expect(a.overflow.fanBound).toBeGreaterThan(a.overflow.unionBound);
  });

  it('plan --items n --fp p: the least memory meeting fp; with a target the fewest block RAMs that fit', () => {
    const p = planCounting({ filter: 'counting', window: 1000, fp: 0.01, extra: {} });
    const c = p.winner.config;
    expect(countingFp(1000, c.cellsPerBank, c.k)).toBeLessThanOrEqual(0.01);
    // Brute force over every (k, c): nothing meets fp with less memory.
    for (let k = 1; k <= 16; k++)
      for (let cells = 2; cells <= 1 << 16; cells *= 2)
        if (countingFp(1000, cells, k) <= 0.01) expect(k * cells).toBeGreaterThanOrEqual(c.k * c.cellsPerBank);
    const t = planCounting({
      filter: 'spectral',
      window: 1000,
      fp: 0.05,
      target: 'ice40-hx8k',
      extra: { algorithm: 2 },
    });
    expect(t.winner.config.algorithm).toBe('rm');
    expect(countingBlockRams(t.winner.config)).toBeLessThanOrEqual(32);
    expect(() => planCounting({ filter: 'counting', window: 0, fp: 0.01, extra: {} })).toThrow(/--items/);
    expect(() =>
      planCounting({ filter: 'counting', window: 10_000_000, fp: 1e-9, target: 'ice40-hx8k', extra: {} }),
    ).toThrow(ConfigError);
  });
});
