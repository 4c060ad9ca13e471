/**
 * The bitwise analytics (src/families/bitwise/analysis.ts): Panjer's recursion against direct
 * enumeration, the manual's basic Bloom formula, a lone item's exact digits, the count-min excess
 * of one level against its closed form, and the zeroing term against a hand derivation. (The
 * experiments compare the whole model with measurements of the model and the RTL.)
 */
import { describe, expect, it } from 'vitest';
import {
  basicFp,
  compoundPoissonPmf,
  falsePositives,
  itemFigures,
  loneDigits,
  partitionedFp,
  uniformProfile,
} from '../../../src/families/bitwise/analysis.js';
import { deriveBitwise } from '../../../src/families/bitwise/config.js';

const cfg = (levels: { cells: number; width: number; k: number }[]) =>
  deriveBitwise({ name: 't', filter: 'bitwise', levels, keyBits: 64, seed: 1 }).levels;

const poisson = (l: number, n: number): number => {
  let p = Math.exp(-l);
  for (let i = 1; i <= n; i++) p *= l / i;
  return p;
};

describe('bitwise analytics', () => {
  it("Panjer's recursion equals the compound Poisson pmf by enumeration", () => {
    const rates = new Map([
      [1, 0.3],
      [3, 0.2],
      [4, 0.05],
    ]);
    const pmf = compoundPoissonPmf(rates, 12);
    for (let s = 0; s < 12; s++) {
      let direct = 0;
      for (let a = 0; a <= s; a++)
        for (let b = 0; 3 * b <= s - a; b++) {
          const c4 = s - a - 3 * b;
          if (c4 % 4 === 0) direct += poisson(0.3, a) * poisson(0.2, b) * poisson(0.05, c4 / 4);
        }
      expect(pmf[s]).toBeCloseTo(direct, 14);
    }
    expect(pmf.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 12);
  });

  it("level-0 fp: the manual's basic formula and its partitioned form", () => {
    // libBf manual, Basic: (1 − (1 − 1/m)^{kn})^k.
    expect(basicFp(8192, 4, 1419)).toBeCloseTo((1 - (1 - 1 / 8192) ** (4 * 1419)) ** 4, 12);
    expect(partitionedFp(8192, 4, 1419)).toBeCloseTo((1 - (1 - 4 / 8192) ** 1419) ** 4, 12);
    // The cell model's fp of n items added once (Poisson cells) is the partitioned value.
    const L = cfg([{ cells: 8192, width: 4, k: 4 }]);
    const fp = falsePositives(L, uniformProfile(1419, 1));
    expect(fp.total / fp.partitioned0).toBeCloseTo(1, 2);
  });

  it('a lone item: digits of f in the mixed radix, no error, reach exactly when f >= 2^{W_i}, then saturation', () => {
    const L = cfg([
      { cells: 64, width: 4, k: 2 },
      { cells: 64, width: 4, k: 2 },
      { cells: 64, width: 8, k: 2 },
    ]);
    for (const f of [1, 15, 16, 17, 255, 256, 4000, 65535, 70000]) {
      const r = itemFigures(L, uniformProfile(1, f), f);
      expect(loneDigits(L, f)).toEqual(f > 65535 ? [15, 15, 255] : [f % 16, (f >> 4) % 16, f >> 8]);
      expect(r.expectedError).toBeCloseTo(Math.min(f, 65535) - f, 9);
      expect(r.falseNegative).toBe(0);
      expect(r.reach).toEqual([1, 16, 256].map((T) => (f >= T ? 1 : 0)));
    }
  });

  it('one level, n items added once: E[C] − 1 is the minimum of k Poisson loads (count-min excess)', () => {
    const L = cfg([{ cells: 1024, width: 8, k: 4 }]);
    const n = 700;
    const lambda = (n - 1) / 256;
    let want = 0;
    for (let t = 1; t < 255; t++) {
      let tail = 1;
      for (let s = 0; s < t; s++) tail -= poisson(lambda, s);
      want += tail ** 4;
    }
    expect(itemFigures(L, uniformProfile(n, 1), 1).expectedError).toBeCloseTo(want, 9);
  });

  it('zeroing: an item carrying out of level 0 that ends on digit 0 empties a shared counter (a false negative)', () => {
    // One heavy item y with f = 1008 (level-0 digit 0, last carry at its very last add) among
    // 100 items added once: a light item reads 0 when one of its k counters is y's (and none of
    // the others lands there after y's last carry): P ≈ 1 − (1 − 1/b)^k, b = m/k.
    const L = cfg([
      { cells: 256, width: 4, k: 4 },
      { cells: 256, width: 8, k: 4 },
    ]);
    const p = new Map([
      [1, 100],
      [1008, 1],
    ]);
    const fn = itemFigures(L, p, 1).falseNegative;
    const b = 64;
    const rho = 1 / 1009;
    const want = (1 - Math.exp(-1 / b)) * Math.exp((-99 * rho) / b) * (1 - rho) * 4;
    expect(fn / want).toBeCloseTo(1, 1);
    // Without the heavy item there is no false negative.
    expect(itemFigures(L, uniformProfile(100, 1), 1).falseNegative).toBe(0);
  });
});
