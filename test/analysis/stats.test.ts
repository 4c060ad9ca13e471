/**
 * The shared statistics module against reference values. Sources: t quantiles from the standard
 * t table (e.g. NIST/SEMATECH e-Handbook §1.3.6.7.2, given there to 3 decimals) at the precision
 * R's qt() prints (R 4.x, `print(qt(p, df), digits = 10)`); for df = 1 and 2 the closed forms
 * tan(π(p − ½)) and (2p − 1)·√(2/(1 − (2p − 1)²)) are checked as well. Normal quantiles from R's
 * qnorm(); ln Γ(½) = ln √π, Γ(n) = (n − 1)!. Poisson values from the pmf e^{−λ}λ^i/i! summed by
 * hand; I_x(a, 1) = x^a and I_½(a, a) = ½ by symmetry.
 */
import { describe, expect, it } from 'vitest';
import {
  binomialExpectation,
  consistentDiffs,
  incompleteBeta,
  lnGamma,
  mean,
  meanInterval,
  normalQuantile,
  poissonCdf,
  poissonPlausible,
  poissonUpperTail,
  proportionInterval,
  proportionWithin,
  sampleSd,
  studentTCdf,
  studentTQuantile,
  zOneSided,
  zTwoSided,
} from '../../src/analysis/stats.js';

describe('normal quantiles', () => {
  it('match qnorm to Acklam’s 1.2e-9 relative error', () => {
    for (const [p, z] of [
      [0.975, 1.959963985],
      [0.995, 2.575829304],
      [0.999, 3.090232306],
      [0.5, 0],
      [0.001, -3.090232306],
      [1e-10, -6.361340902],
    ] as const)
      expect(Math.abs(normalQuantile(p) - z)).toBeLessThan(2e-9 * Math.max(1, Math.abs(z)));
  });

  it('Bonferroni z: two-sided and one-sided', () => {
    expect(zTwoSided(0.95)).toBeCloseTo(1.959963985, 8);
    expect(zTwoSided(0.99, 5)).toBeCloseTo(normalQuantile(1 - 0.001), 12);
    expect(zOneSided(0.99)).toBeCloseTo(2.326347874, 8);
    expect(zOneSided(0.99, 0)).toBe(zOneSided(0.99, 1));
  });
});

describe('Student t', () => {
  it('quantiles match the t table to 1e-8', () => {
    for (const [p, df, t] of [
      [0.975, 10, 2.228138852],
      [0.975, 1, 12.70620474],
      [0.975, 2, 4.30265273],
      [0.995, 1, 63.65674116],
      [0.995, 2, 9.924843201],
      [0.995, 4, 4.604094871],
      [0.995, 10, 3.169272673],
      [0.995, 19, 2.860934606],
      [0.995, 30, 2.749995654],
      [0.995, 1000, 2.580754698],
    ] as const)
      expect(Math.abs(studentTQuantile(p, df) - t), `t_{${p}, ${df}}`).toBeLessThan(1e-8 * t);
  });

  it('closed forms at df = 1 and 2, symmetry, and the normal limit', () => {
    for (const p of [0.6, 0.9, 0.975, 0.995, 0.9999]) {
      expect(studentTQuantile(p, 1)).toBeCloseTo(Math.tan(Math.PI * (p - 0.5)), 6);
      const u = 2 * p - 1;
      expect(studentTQuantile(p, 2)).toBeCloseTo(u * Math.sqrt(2 / (1 - u * u)), 9);
      expect(studentTQuantile(1 - p, 7)).toBeCloseTo(-studentTQuantile(p, 7), 12);
    }
    expect(studentTQuantile(0.995, Infinity)).toBe(normalQuantile(0.995));
    expect(studentTQuantile(0.995, 1e7)).toBeCloseTo(2.575829304, 5);
    expect(studentTCdf(2.228138852, 10)).toBeCloseTo(0.975, 9);
    expect(studentTCdf(0, 3)).toBe(0.5);
    expect(() => studentTQuantile(1, 3)).toThrow();
    expect(() => studentTQuantile(0.9, 0)).toThrow();
  });

  it('the incomplete beta function: I_x(a, 1) = x^a, I_½(a, a) = ½, the ends', () => {
    for (const [x, a] of [
      [0.3, 2],
      [0.9, 5.5],
      [0.01, 0.5],
    ] as const)
      expect(incompleteBeta(x, a, 1)).toBeCloseTo(x ** a, 12);
    for (const a of [0.5, 3, 40]) expect(incompleteBeta(0.5, a, a)).toBeCloseTo(0.5, 12);
    expect(incompleteBeta(0, 2, 3)).toBe(0);
    expect(incompleteBeta(1, 2, 3)).toBe(1);
  });

  it('the mean interval: t_{0.995, 4}·s/√n for five values, Bonferroni widens it', () => {
    const iv = meanInterval([1, 2, 3, 4, 5]);
    expect(iv.mean).toBe(3);
    expect(iv.half).toBeCloseTo((4.604094871 * Math.sqrt(2.5)) / Math.sqrt(5), 7);
    expect(meanInterval([1, 2, 3, 4, 5], 0.99, 10).half).toBeGreaterThan(iv.half);
    expect(() => meanInterval([1])).toThrow();
    expect(mean([1, 2, 6])).toBe(3);
    expect(sampleSd([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(Math.sqrt(32 / 7), 12);
  });
});

describe('ln Γ', () => {
  it('ln Γ(½) = ln √π and ln Γ(n) = ln (n − 1)!', () => {
    expect(lnGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 13);
    expect(lnGamma(1)).toBeCloseTo(0, 13);
    expect(lnGamma(2)).toBeCloseTo(0, 13);
    expect(lnGamma(11)).toBeCloseTo(Math.log(3628800), 11);
    expect(lnGamma(0.25)).toBeCloseTo(1.288022525, 8); // Γ(¼) = 3.625609908
  });

  it('binomial expectations: E[N] = nq and E[N²] = nq(1 − q) + (nq)²', () => {
    expect(binomialExpectation(200, 0.1, (N) => N)).toBeCloseTo(20, 9);
    expect(binomialExpectation(200, 0.1, (N) => N * N)).toBeCloseTo(18 + 400, 7);
    expect(binomialExpectation(0, 0.3, (N) => N + 7)).toBe(7);
  });
});

describe('Poisson', () => {
  it('tails: P(X ≤ 2 | 1) = 2.5/e, P(X ≥ 1) = 1 − e^{−λ}, far tails without underflow', () => {
    expect(poissonCdf(2, 1)).toBeCloseTo(2.5 * Math.exp(-1), 14);
    expect(poissonUpperTail(3, 1)).toBeCloseTo(1 - Math.exp(-1) * 2.5, 14);
    expect(poissonUpperTail(1, 0.002)).toBeCloseTo(-Math.expm1(-0.002), 15);
    expect(poissonUpperTail(0, 5)).toBe(1);
    expect(poissonCdf(-1, 5)).toBe(0);
    const far = poissonUpperTail(60, 10);
    expect(far).toBeGreaterThan(0);
    expect(far).toBeLessThan(1e-15);
    // e^{−2000} underflows; in log space the median of Poisson(2000) is still found.
    expect(poissonCdf(2000, 2000)).toBeGreaterThan(0.5);
    expect(poissonCdf(1999, 2000)).toBeLessThan(0.5);
    expect(poissonCdf(7, 4) + poissonUpperTail(8, 4)).toBeCloseTo(1, 14);
  });

  it('the two-sided test', () => {
    expect(poissonPlausible(10, 10)).toBe(true);
    expect(poissonPlausible(30, 10)).toBe(false);
    expect(poissonPlausible(0, 0.5)).toBe(true);
    expect(poissonPlausible(0, 6)).toBe(false); // 2e^{−6} = 0.005
    expect(poissonPlausible(0, 6, 0.001)).toBe(true);
    expect(poissonPlausible(2100, 2000)).toBe(true); // 2.2 sd
    expect(poissonPlausible(2200, 2000)).toBe(false); // 4.5 sd
    expect(poissonPlausible(1, 0)).toBe(false);
  });

  it('consistentDiffs: the t interval, or the Poisson test for rare counts', () => {
    expect(consistentDiffs([0.1, -0.1, 0.05, -0.02, 0], 0, 0)).toBe(true);
    expect(consistentDiffs([1, 1.1, 0.9, 1.05, 0.95], 50, 10)).toBe(false);
    expect(consistentDiffs([1, 1.1, 0.9, 1.05, 0.95], 11, 10)).toBe(true);
    expect(consistentDiffs([5, 5], 10, 10)).toBe(true);
  });
});

describe('proportions (normal approximation of the score test)', () => {
  it('the acceptance region and the within check', () => {
    const [lo, hi] = proportionInterval(0.5, 10000, 0.99, 1);
    expect(hi - lo).toBeCloseTo(2 * 2.575829304 * 0.005, 8);
    expect(proportionWithin(530, 1000, 0.5, 2.576)).toBe(true); // 1.9 sd
    expect(proportionWithin(550, 1000, 0.5, 2.576)).toBe(false); // 3.2 sd
    expect(proportionWithin(550, 1000, 0.5, 2.576, 0.02)).toBe(true);
    expect(proportionWithin(1, 2000, 0, 3)).toBe(false);
    expect(proportionWithin(1, 2000, 0, 3, 0, 1e-4)).toBe(true); // 3·√(1e-4/2000) > 1/2000
  });
});
