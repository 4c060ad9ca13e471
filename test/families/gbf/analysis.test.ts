/**
 * GBF analytics (Dautrich & Ravishankar §5.3): Theorem 6 against the model, the closed forms of
 * the posterior against the direct sum of Eq. 9 with Eq. 32, Eq. 34 as printed against the form
 * without the q0/(q0+q1) = 1/2 step, the loss of Eq. 34 in double precision for large k (§5.3.2
 * warns of it near k = 30) and its double-double evaluation, and the standard filter's figures.
 */
import { describe, expect, it } from 'vitest';
import {
  coefficients,
  f0,
  freshAccesses,
  freshHitProbability,
  hitProbability,
  likelihood,
  posterior,
  posteriorDirect,
  posteriorEq34,
  posteriorEq34Double,
  qEps,
  qEpsDD,
  zeroShare,
  type GbfShape,
} from '../../../src/families/gbf/analysis.js';
import { GbfModel } from '../../../src/families/gbf/model.js';

const key = (i: number): bigint => (BigInt(i + 1) * 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;

describe('cell probabilities (Eqs. 28–31)', () => {
  it('partitioned: q_ε = 1 − K/m and a written cell is 0 with probability k0/K; shared: Eqs. 28–30', () => {
    const p: GbfShape = { k0: 3, k1: 5, m: 8 * 1024, layout: 'partitioned' };
    expect(qEps(p)).toBeCloseTo(1 - 8 / (8 * 1024), 15);
    expect(zeroShare(p)).toBe(3 / 8);
    const s: GbfShape = { k0: 4, k1: 4, m: 1000, layout: 'shared' };
    const u = 1 - 1 / 1000;
    expect(qEps(s)).toBeCloseTo(u ** 8, 15);
    // §5.3.2: with k0 = k1 = k, q0/(q0+q1) = 1/(1 + (1 − 1/m)^k) ≈ 1/2.
    expect(zeroShare(s)).toBeCloseTo(1 / (1 + u ** 4), 14);
  });

  it("Theorem 6 on the model: a key's reset cells stay 0 with f0(1, i), set cells stay 1 with 1 − f0(0, i)", () => {
    const p = { k0: 2, k1: 2, m: 4 * 256, layout: 'partitioned' as const, keyBits: 64, seed: 9 };
    const g = new GbfModel(p);
    for (let i = 0; i < 5000; i++) g.insert(key(1_000_000 + i));
    const ages = [0, 64, 256, 1024];
    const zeros = ages.map(() => 0);
    const ones = ages.map(() => 0);
    const trials = 1500;
    let n = 0;
    for (let t = 0; t < trials; t++) {
      const x = key(t);
      g.insert(x);
      const idx = [...g.idx];
      const reset = [...g.reset];
      let done = 0;
      ages.forEach((a, ai) => {
        for (; done < a; done++) g.insert(key(2_000_000 + n++));
        idx.forEach((cell, j) => {
          if (reset[j]) zeros[ai]! += g.cells[cell] === 0 ? 1 : 0;
          else ones[ai]! += g.cells[cell] === 1 ? 1 : 0;
        });
      });
    }
    ages.forEach((a, ai) => {
      const pz = f0(p, 1, a);
      const po = 1 - f0(p, 0, a);
      const cells = trials * 2;
      expect(Math.abs(zeros[ai]! / cells - pz)).toBeLessThan(4 * Math.sqrt((pz * (1 - pz)) / cells) + 1e-9);
      expect(Math.abs(ones[ai]! / cells - po)).toBeLessThan(4 * Math.sqrt((po * (1 - po)) / cells) + 1e-9);
    });
  });
});

describe('the posterior P(I_x < w | R_x)', () => {
  const shapes: GbfShape[] = [
    { k0: 2, k1: 2, m: 4 * 64, layout: 'partitioned' },
    { k0: 1, k1: 3, m: 4 * 128, layout: 'partitioned' },
    { k0: 3, k1: 2, m: 300, layout: 'shared' },
  ];
  for (const s of shapes)
    it(`closed form = the direct sum of Eq. 9 with Eq. 32 (${s.layout}, k0=${s.k0}, k1=${s.k1})`, () => {
      for (const [px, w] of [
        [1 / 200, 100],
        [1 / 50, 500],
      ] as const)
        for (let c0 = 0; c0 <= s.k0; c0++)
          for (let c1 = 0; c1 <= s.k1; c1++) {
            const x = { c0, c1, r0: s.k0, r1: s.k1 };
            const closed = posterior(s, px, w, x);
            expect(closed).toBeGreaterThanOrEqual(0);
            expect(closed).toBeLessThanOrEqual(1);
            expect(closed).toBeCloseTo(posteriorDirect(s, px, w, x), 10);
          }
    });

  it('Eq. 34 (d = c0 + c1, e = r0 + r1 − d, C^s_{d,e}) is that form with q0/(q0+q1) = 1/2: equal when k0 = k1 (partitioned)', () => {
    const s: GbfShape = { k0: 4, k1: 4, m: 8 * 512, layout: 'partitioned' };
    for (let c0 = 0; c0 <= 4; c0++)
      for (let c1 = 0; c1 <= 4; c1++) {
        const d = c0 + c1;
        expect(posteriorEq34(d, 8 - d, 1 / 3000, 2000, qEpsDD(s))).toBeCloseTo(
          posterior(s, 1 / 3000, 2000, { c0, c1, r0: 4, r1: 4 }),
          13,
        );
      }
    // The coefficients: (1 + t)^2 (1 − t)^1 = 1 + t − t² − t³.
    expect(coefficients(2, 1)).toEqual([1n, 1n, -1n, -1n]);
  });

  it('Eq. 34 in double precision loses the posterior for large k; double-double keeps it (= Eq. 9 summed)', () => {
    const s: GbfShape = { k0: 25, k1: 25, m: 2 ** 16 * 8, layout: 'partitioned' };
    const px = 2 ** -16;
    const w = 2 ** 16;
    const x = { c0: 0, c1: 0, r0: 25, r1: 25 };
    const direct = posteriorDirect(s, px, w, x);
    expect(posteriorEq34(0, 50, px, w, qEpsDD(s))).toBeCloseTo(direct, 9);
    expect(Math.abs(posteriorEq34Double(0, 50, px, w, qEps(s)) - direct)).toBeGreaterThan(1e-3);
  });

  it('the posterior rises with the cells that match and falls as w shrinks', () => {
    const s: GbfShape = { k0: 3, k1: 3, m: 6 * 1024, layout: 'partitioned' };
    const p = (c0: number, c1: number, w = 2000) => posterior(s, 1 / 4000, w, { c0, c1, r0: 3, r1: 3 });
    expect(p(3, 3)).toBeGreaterThan(p(3, 2));
    expect(p(2, 2)).toBeGreaterThan(p(1, 1));
    expect(p(3, 3, 500)).toBeLessThan(p(3, 3, 2000));
  });
});

describe('the standard GBF', () => {
  it('a key inserted i ago is reported with (f0(1,i))^k0 (1 − f0(0,i))^k1; a never-inserted key with (k0/K)^k0 (k1/K)^k1', () => {
    const s: GbfShape = { k0: 2, k1: 3, m: 5 * 100, layout: 'partitioned' };
    expect(hitProbability(s, 0)).toBe(1);
    expect(hitProbability(s, 300)).toBeCloseTo(f0(s, 1, 300) ** 2 * (1 - f0(s, 0, 300)) ** 3, 14);
    expect(hitProbability(s, 300)).toBe(likelihood(s, { c0: 2, c1: 3, r0: 2, r1: 3 }, 300));
    expect(freshHitProbability(s)).toBeCloseTo((2 / 5) ** 2 * (3 / 5) ** 3, 14);
    // Long after the clear every cell has been written: the steady state.
    expect(freshHitProbability(s, 100_000)).toBeCloseTo(freshHitProbability(s), 12);
    expect(freshHitProbability(s, 0)).toBe(0); // all zero: a set cell never matches
  });

  it('accesses of a query stopping at the first differing cell, by enumeration of outcomes', () => {
    const s: GbfShape = { k0: 2, k1: 3, m: 500, layout: 'partitioned' };
    const z = 2 / 5;
    const probs = [z, z, 1 - z, 1 - z, 1 - z];
    let all = 0;
    let falseMass = 0;
    let falseReads = 0;
    for (let mask = 0; mask < 32; mask++) {
      let pr = 1;
      probs.forEach((p, j) => (pr *= (mask >> j) & 1 ? p : 1 - p));
      let reads = 0;
      let miss = false;
      for (let j = 0; j < 5 && !miss; j++) {
        reads++;
        miss = ((mask >> j) & 1) === 0;
      }
      all += pr * reads;
      if (miss) {
        falseMass += pr;
        falseReads += pr * reads;
      }
    }
    const a = freshAccesses(s);
    expect(a.all).toBeCloseTo(all, 14);
    expect(a.givenFalse).toBeCloseTo(falseReads / falseMass, 14);
  });
});
