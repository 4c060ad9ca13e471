/**
 * Inferential BTBF (Dautrich & Ravishankar §4): the closed forms of Theorems 2–5 against a direct
 * numerical evaluation of Eq. 9 with the likelihoods of Lemmas 4.1/4.2, and the D(j) forms.
 */
import { describe, expect, it } from 'vitest';
import {
  decide,
  distinctPowerLaw,
  distinctSampled,
  distinctUniform,
  insertionAge,
  likelihood,
  posterior,
  simpleBufferPosterior,
  type BtbfShape,
  type Latent,
} from '../../../src/families/tbf/analysis.js';

const shape: BtbfShape = { k: 3, timersPerHash: 16, layout: 'partitioned', window: 20, blockSize: 4 };
const U = 50;
const px = 1 / U;
const D = distinctUniform(U);

/** Eq. 9 summed directly: Σ_{i<w} P(i)P(R|i) / Σ_i P(i)P(R|i), P(i) = p(1−p)^i (Eq. 4). */
function eq9(x: Latent): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < 200_000; i++) {
    const t = px * (1 - px) ** i * likelihood(shape, D, x, i);
    den += t;
    if (i < shape.window) num += t;
  }
  return num / den;
}

describe('Theorems 2–5 equal the direct sum of Eq. 9', () => {
  // b = 3: ⌈(w − b)/B⌉ = ⌈17/4⌉ = 5.
  const cases: [string, Latent][] = [
    ['λ = 0 (Theorem 3)', { lambda: 0, c: 3, r: 3, b: 3 }],
    ['0 < λ < ⌈(w−b)/B⌉ (Theorem 4), c = r', { lambda: 2, c: 3, r: 3, b: 3 }],
    ['0 < λ < ⌈(w−b)/B⌉ (Theorem 4), c < r', { lambda: 4, c: 1, r: 3, b: 3 }],
    ['λ = ⌈(w−b)/B⌉ (Theorem 5)', { lambda: 5, c: 2, r: 3, b: 3 }],
    ['λ = ⌈(w−b)/B⌉ with b = 0 (Theorem 5)', { lambda: 5, c: 1, r: 3, b: 0 }],
    ['expired (Theorem 2)', { lambda: Infinity, c: 1, r: 3, b: 1 }],
    ['beyond the window (Theorem 2)', { lambda: 6, c: 1, r: 3, b: 3 }],
  ];
  for (const [what, x] of cases) {
    it(what, () => {
      const closed = posterior(shape, D, px, x);
      expect(closed).toBeGreaterThanOrEqual(0);
      expect(closed).toBeLessThanOrEqual(1);
      expect(closed).toBeCloseTo(eq9(x), 9);
    });
  }

  it('the posterior falls with age and rises with the number of timers holding the oldest stamp', () => {
    const p = (lambda: number, c: number) => posterior(shape, D, px, { lambda, c, r: 3, b: 3 });
    expect(p(1, 3)).toBeGreaterThan(p(3, 3));
    expect(p(3, 3)).toBeGreaterThan(p(3, 1));
  });
});

describe('insertion-age estimates', () => {
  it('expected age equals the numerical Σ i·P(i|R) and the mode is the start of the likeliest piece', () => {
    const x: Latent = { lambda: 3, c: 2, r: 3, b: 1 };
    let z = 0;
    let m = 0;
    let best = [0, -1];
    for (let i = 0; i < 200_000; i++) {
      const t = px * (1 - px) ** i * likelihood(shape, D, x, i);
      z += t;
      m += i * t;
      if (t > best[1]!) best = [i, t];
    }
    const est = insertionAge(shape, D, px, x);
    expect(est.expected).toBeCloseTo(m / z, 6);
    expect(est.mostLikely).toBe(best[0]);
  });
});

describe('D(j)', () => {
  it('uniform (Eq. 16) is |U|(1 − (1 − 1/|U|)^j)', () => {
    expect(distinctUniform(100)(50)).toBeCloseTo(100 * (1 - 0.99 ** 50), 10);
  });
  it('power law (Eq. 17) is close to a direct sum of Eq. 15 for small j', () => {
    const N = 2 ** 16;
    const Dp = distinctPowerLaw(N);
    let H = 0;
    for (let x = 1; x <= N; x++) H += 1 / x;
    const direct = (j: number) => {
      let s = 0;
      for (let x = 1; x <= N; x++) s += 1 - (1 - 1 / (x * H)) ** j;
      return s;
    };
    for (const j of [100, 1000, 10_000]) expect(Math.abs(Dp(j) - direct(j)) / direct(j)).toBeLessThan(0.05);
  });
  it('sampled values interpolate logarithmically (Eq. 18)', () => {
    const Ds = distinctSampled([
      [10, 10],
      [1000, 500],
    ]);
    expect(Ds(10)).toBeCloseTo(10, 10);
    expect(Ds(1000)).toBeCloseTo(500, 8);
    expect(Math.log(Ds(100))).toBeCloseTo(Math.log(10) + Math.log(50) / 2, 10);
  });
});

describe('decisions and the Simple Buffer', () => {
  it('Pos iff $FP·(1−P) ≤ $FN·P', () => {
    expect(decide(0.5, 1, 1)).toBe(true);
    expect(decide(0.2, 1, 3)).toBe(false);
    expect(decide(0.3, 1, 3)).toBe(true);
  });
  it('Eq. 36: a hit in a buffer of all w items is near-certain when hashes are long', () => {
    const Db = distinctUniform(1 << 20);
    expect(simpleBufferPosterior(2 ** -20, 4096, 4096, 30, Db, true)).toBeGreaterThan(0.99);
    expect(simpleBufferPosterior(2 ** -20, 4096, 4096, 30, Db, false)).toBe(0);
    expect(simpleBufferPosterior(2 ** -20, 4096, 1024, 30, Db, false)).toBeCloseTo(1 - (1 - 2 ** -20) ** 3072, 12);
  });
});

describe('standard TBF/BTBF false positives', () => {
  it('match a simulation of the model on distinct keys', async () => {
    const { TbfModel } = await import('../../../src/families/tbf/model.js');
    const { standardFalsePositiveRate } = await import('../../../src/families/tbf/analysis.js');
    const p = {
      k: 3,
      timersPerBank: 512,
      timerBits: 8,
      window: 600,
      blockSize: 8,
      padding: 20,
      keyBits: 64,
      seed: 5,
      layout: 'partitioned' as const,
    };
    const model = new TbfModel(p);
    let next = 1n;
    const key = () => (next++ * 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
    for (let i = 0; i < 3000; i++) model.insert(key());
    let hits = 0;
    const N = 40_000;
    for (let i = 0; i < N; i++) {
      if (i % 10 === 0) model.insert(key());
      if (model.query(key() + (1n << 63n)).hit) hits++;
    }
    const fp = standardFalsePositiveRate({
      k: 3,
      timersPerHash: 512,
      layout: 'partitioned',
      window: 600,
      blockSize: 8,
    });
    expect(Math.abs(hits / N - fp)).toBeLessThan(4 * Math.sqrt((fp * (1 - fp)) / N) + 0.01);
    expect(fp).toBeGreaterThan(0.2);
  });
});
