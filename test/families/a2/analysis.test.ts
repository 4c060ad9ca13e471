/**
 * A² analytics (src/families/a2/analysis.ts) against the seed's formulas (libBf manual, "Aging" →
 * "A²": φ_a = 1 − √(1 − φ_P), k_a* = ⌊−log2 φ_a⌋, κ_a* = ⌊m/(2k) ln 2⌋) and against the model.
 */
import { describe, expect, it } from 'vitest';
import {
  foundProbability,
  fpAt,
  fpBothFull,
  fpSeed,
  fpWorst,
  halfFill,
  halfTarget,
  optimalK,
  optimalKappa,
  plainHalfFp,
  presentProbability,
} from '../../../src/families/a2/analysis.js';
import { A2Model, roles } from '../../../src/families/a2/model.js';
import { popcount } from '../../../src/util/bits.js';
import { fillRatio } from '../../../src/analysis/bloom.js';
import { Rng } from '../../../src/util/rng.js';

describe('A² analytics', () => {
  it("the seed's formulas: φ_a solves 1 − (1 − φ_a)² = φ_P; k_a*, κ_a*", () => {
    for (const p of [0.1, 0.01, 0.001, 1e-6]) expect(1 - (1 - halfTarget(p)) ** 2).toBeCloseTo(p, 12);
    expect(halfTarget(0.01)).toBeCloseTo(0.0050126, 6);
    expect(optimalK(0.01)).toBe(7); // ⌊−log2 0.0050126⌋ = ⌊7.64⌋
    expect(optimalK(0.001)).toBe(10); // ⌊−log2 0.00050013⌋ = ⌊10.97⌋
    expect(optimalK(0.9)).toBe(1); // at least one hash
    expect(optimalKappa(32768, 8)).toBe(1419); // ⌊2048 ln 2⌋
    expect(optimalKappa(81920, 10)).toBe(2839);
  });

  it("with the plain fill, the seed's form is (1 − (1 − 1/b)^κ)^k per half and both halves at κ", () => {
    const [k, b, K] = [8, 2048, 1419];
    expect(fpSeed(k, b, K)).toBeCloseTo(1 - (1 - fillRatio(b, K) ** k) ** 2, 15);
    expect(plainHalfFp(k, b, K)).toBeCloseTo(0.5 ** k, 4); // fill 1/2 at κ*
  });

  it('the worst moment (active κ − 1, standby κ) is below both-halves-full and above every other fill', () => {
    const [k, b, K] = [4, 512, 354];
    expect(fpWorst(k, b, K)).toBeLessThan(fpBothFull(k, b, K));
    for (let j = 0; j < K - 1; j += 17) expect(fpAt(k, b, j, K)).toBeLessThan(fpWorst(k, b, K));
  });

  it("the skip rule's fill recursion matches the model's halves (and the plain fill does not)", () => {
    const [k, bankBits, kappa] = [4, 512, 354];
    const m = new A2Model({ k, kappa, bankBits, keyBits: 64, seed: 21 });
    const rng = new Rng(1);
    const fills: number[] = [];
    let last = 0;
    while (m.swaps < 150) {
      m.insert(rng.next64());
      if (m.swaps === last) continue;
      last = m.swaps;
      if (m.swaps < 3) continue;
      for (const bank of m.bits[roles(m.act).standby]!)
        fills.push(bank.reduce((s, w) => s + popcount(w), 0) / bankBits);
    }
    const mean = fills.reduce((s, x) => s + x, 0) / fills.length;
    const sd = Math.sqrt(fills.reduce((s, x) => s + (x - mean) ** 2, 0) / (fills.length - 1));
    const half = (3.3 * sd) / Math.sqrt(fills.length); // 99.9 % interval of the mean
    expect(Math.abs(mean - halfFill(k, bankBits, kappa))).toBeLessThan(half);
    expect(Math.abs(mean - fillRatio(bankBits, kappa))).toBeGreaterThan(half);
  });

  it('present and found probabilities vs age: 1 below κ, linear to 0 at 2κ − 1, fp floor after', () => {
    const [k, b, K] = [4, 512, 100];
    expect(presentProbability(K, 0)).toBe(1);
    expect(presentProbability(K, K - 1)).toBe(1);
    expect(presentProbability(K, K)).toBeCloseTo(0.99, 12);
    expect(presentProbability(K, 2 * K - 2)).toBeCloseTo(0.01, 12);
    expect(presentProbability(K, 2 * K - 1)).toBe(0);
    expect(foundProbability(k, b, K, K - 1)).toBe(1);
    const floor = foundProbability(k, b, K, 3 * K);
    expect(floor).toBeGreaterThan(fpAt(k, b, 0, K) - 1e-12);
    expect(floor).toBeLessThan(fpWorst(k, b, K));
  });
});
