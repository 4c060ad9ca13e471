/**
 * TBF/BTBF reference model: no false negatives, the expiry scan keeps every stale timer from
 * being read as live, and the inferential posteriors are calibrated (Eq. 35) and beat the
 * standard answer on total penalty for a [Pos≈Neg] uniform stream (§6).
 */
import { describe, expect, it } from 'vitest';
import { decide, distinctUniform, posterior, type BtbfShape } from '../../../src/families/tbf/analysis.js';
import { ExactWindow } from '../../../src/model/window.js';
import { TbfModel, tbfNumbers } from '../../../src/families/tbf/model.js';
import type { TbfParams } from '../../../src/families/tbf/types.js';
import { Rng } from '../../../src/util/rng.js';

function uniformKeys(universe: number, seed: number): () => bigint {
  const rng = new Rng(seed);
  return () => (BigInt(Math.floor(rng.float() * universe)) * 0x9e3779b97f4a7c15n) & ((1n << 64n) - 1n);
}

const base: TbfParams = {
  k: 4,
  timersPerBank: 256,
  timerBits: 8,
  window: 600,
  blockSize: 4,
  padding: 20,
  keyBits: 64,
  seed: 3,
  layout: 'partitioned',
};

describe('TBF/BTBF model', () => {
  it('rejects a timer width that cannot hold TΩ beside Tε', () => {
    expect(() => tbfNumbers({ ...base, window: 2000 })).toThrow(/TΩ = .* needs 10 timer bits/);
  });

  /** Runs a stream with a shadow of true timer ages; returns the first violation, or null. */
  function shadowRun(p: TbfParams, noScan = false): { violation: string | null; increments: number; live: number } {
    const model = new TbfModel(p);
    const n = model.n;
    if (noScan) (n as { scanPerInsert: number }).scanPerInsert = 0;
    // The T+ increment count when each timer was last set (the truth a timestamp encodes).
    const setAt = new Float64Array(n.m).fill(NaN);
    let increments = 0;
    let live = 0;
    const exact = new ExactWindow(p.window);
    const next = uniformKeys(3 * p.window, p.blockSize);
    for (let step = 0; step < 12 * p.window; step++) {
      const key = next();
      const q = model.query(key);
      if (exact.has(key) && !q.hit) return { violation: `false negative at step ${step}`, increments, live };
      // Every timer not marked Tε must show its true age: it was never allowed to wrap.
      for (let i = 0; i < n.m; i++) {
        const t = model.timers[i]!;
        if (t === n.tEps) continue;
        live++;
        const trueAge = increments - setAt[i]!;
        if (!(trueAge <= n.tOmega && model.age(t) === trueAge)) {
          return { violation: `timer ${i}: true age ${trueAge}, model age ${model.age(t)}`, increments, live };
        }
      }
      for (const i of model.indexes(key)) setAt[i] = increments;
      const before = model.tPlus;
      model.insert(key);
      if (model.tPlus !== before) increments++;
      exact.insert(key);
    }
    return { violation: null, increments, live };
  }

  for (const B of [1, 4]) {
    for (const layout of ['partitioned', 'shared'] as const) {
      it(`B=${B} ${layout}: over >= 3 wraps of T+, no false negative and no stale timer read as live`, () => {
        const p: TbfParams = { ...base, blockSize: B, layout, window: B === 1 ? 200 : 600, padding: B === 1 ? 30 : 20 };
        const r = shadowRun(p);
        expect(r.violation).toBeNull();
        expect(r.live).toBeGreaterThan(0);
        expect(r.increments).toBeGreaterThan(3 * (tbfNumbers(p).tOmega + 1));
      });
    }
  }

  it('the hardware schedule (one word of every bank per insert) keeps every timer exact over >= 3 wraps', () => {
    // timersPerBank 256 in words of 4: 64 words <= B·(P+1) = 4·16.
    const p: TbfParams = { ...base, blockSize: 4, padding: 15, timersPerWord: 4 };
    const r = shadowRun(p);
    expect(r.violation).toBeNull();
    expect(r.increments).toBeGreaterThan(3 * (tbfNumbers(p).tOmega + 1));
    // One word short of the bound, the same run goes wrong.
    const broken = shadowRun({ ...p, padding: 14 });
    expect(broken.violation).toMatch(/true age|false negative/);
  });

  it('without the expiry scan, stale timers wrap and are read as live (the check is not vacuous)', () => {
    const r = shadowRun({ ...base, window: 200, blockSize: 1, padding: 30 }, true);
    expect(r.violation).toMatch(/true age|false negative/);
  });
});

describe('inferential BTBF on a uniform stream ([Pos≈Neg])', () => {
  it('posterior error (Eq. 35) < 0.05 and lower total penalty than the standard answer', () => {
    const U = 8192;
    const w = 4096; // P(I < w) = 1 − (1 − 1/U)^w ≈ 0.39
    const p: TbfParams = { ...base, window: w, blockSize: 16, timerBits: 9, timersPerBank: 1024, padding: 64 };
    const model = new TbfModel(p);
    const shape: BtbfShape = {
      k: p.k,
      timersPerHash: p.timersPerBank,
      layout: 'partitioned',
      window: w,
      blockSize: p.blockSize,
    };
    const D = distinctUniform(U);
    const exact = new ExactWindow(w);
    const next = uniformKeys(U, 7);
    const rng = new Rng(99);
    for (let i = 0; i < 4 * w; i++) {
      const key = next();
      model.insert(key);
      exact.insert(key);
    }
    const bins = Array.from({ length: 20 }, () => ({ n: 0, inWindow: 0 }));
    let penaltyStd = 0;
    let penaltyInf = 0;
    const N = 30_000;
    for (let i = 0; i < N; i++) {
      const key = next();
      const truth = exact.has(key);
      const q = model.testAndInsert(key);
      exact.insert(key);
      const post = posterior(shape, D, 1 / U, q);
      const bin = bins[Math.min(19, Math.floor(post * 20))]!;
      bin.n++;
      if (truth) bin.inWindow++;
      const costFP = 1 + 9 * rng.float();
      const costFN = 1 + 9 * rng.float();
      const cost = (answer: boolean): number => (answer === truth ? 0 : answer ? costFP : costFN);
      penaltyStd += cost(q.hit);
      penaltyInf += cost(decide(post, costFP, costFN));
    }
    const error = bins.reduce((s, b, l) => s + (b.n ? Math.abs(b.inWindow / b.n - (l + 0.5) / 20) * b.n : 0), 0) / N;
    expect(error).toBeLessThan(0.05);
    expect(penaltyInf).toBeLessThan(penaltyStd);
  });
});
