/**
 * The Stable Bloom filter analysis: Deng & Rafiei's formulas (SIGMOD 2006, their analysis: the stable point
 * P0 = (1/(1 + 1/(P(1/k − 1/m))))^Max, FPS = (1 − P0)^k and the P for a target FPS) checked
 * against an independent simulation of their SBF (P cells decremented anywhere), the libBf
 * manual's printed formula shown to be neither, and the word-local variant's analysis against
 * its model.
 */
import { describe, expect, it } from 'vitest';
import {
  drFalsePositive,
  drOptimalP,
  drStablePoint,
  foundCurve,
  libbfManualFps,
  smallestP,
  stablePoint,
  variantAsDengRafiei,
  zeroCurve,
} from '../../../src/families/stable/analysis.js';
import { stableExperiments } from '../../../src/families/stable/experiments.js';
import type { StableDerived } from '../../../src/families/stable/types.js';
import { Rng } from '../../../src/util/rng.js';
import { presetConfig, presetsOf } from '../../helpers/families.js';

/**
 * Deng & Rafiei's SBF as they describe it: m cells, each insert decrements P cells chosen
 * uniformly at random (independently) and sets k random cells to Max. Returns the mean fraction
 * of zeros and the fp of fresh random positions, measured over `rounds` inserts after `warm`.
 */
function simulateDr(
  m: number,
  k: number,
  d: number,
  P: number,
  warm: number,
  rounds: number,
  seed: number,
): { zeros: number; fp: number } {
  const rng = new Rng(seed);
  const max = 2 ** d - 1;
  const cells = new Uint8Array(m);
  const pick = (): number => Math.floor(rng.float() * m);
  let zeroSum = 0;
  let zeroN = 0;
  let fpHits = 0;
  let fpN = 0;
  for (let t = 0; t < warm + rounds; t++) {
    for (let p = 0; p < P; p++) {
      const j = pick();
      if (cells[j]! > 0) cells[j]!--;
    }
    for (let i = 0; i < k; i++) cells[pick()] = max;
    if (t >= warm && t % 250 === 0) {
      let z = 0;
      for (let j = 0; j < m; j++) if (cells[j] === 0) z++;
      zeroSum += z / m;
      zeroN++;
      for (let q = 0; q < 1000; q++) {
        let all = true;
        for (let i = 0; i < k; i++) if (cells[pick()] === 0) all = false;
        if (all) fpHits++;
        fpN++;
      }
    }
  }
  return { zeros: zeroSum / zeroN, fp: fpHits / fpN };
}

describe("Deng & Rafiei's formulas", () => {
  for (const [m, k, d, P] of [
    [4000, 3, 2, 10],
    [4000, 4, 3, 30],
    [2000, 2, 1, 3],
  ] as const) {
    it(`m=${m} k=${k} d=${d} P=${P}: the simulated SBF settles at P0 and FPS (and not at the libBf manual's formula)`, () => {
      const max = 2 ** d - 1;
      const s = simulateDr(m, k, d, P, 30 * m, 100 * m, m + P);
      const p0 = drStablePoint(P, k, m, max);
      const fps = drFalsePositive(P, k, m, max);
      // Averages over ~1600 snapshots 250 inserts apart (correlated states, so no binomial
      // interval over the 1.6·10^6 probes): zeros within 0.01 of P0, fp within 3% of FPS (the
      // formula's (1 − P0)^k is the fp at the mean zero fraction, not the mean fp).
      expect(Math.abs(s.zeros - p0)).toBeLessThan(0.01);
      expect(Math.abs(s.fp - fps) / fps).toBeLessThan(0.03);
    });
  }

  it("the libBf manual's printed formula (exponents missing) is neither P0 nor FPS", () => {
    for (const [m, k, d, P] of [
      [4000, 3, 2, 10],
      [2000, 2, 1, 3],
      [6144, 3, 2, 21],
    ] as const) {
      const max = 2 ** d - 1;
      const manual = libbfManualFps(P, k, m);
      expect(Math.abs(manual - drFalsePositive(P, k, m, max)), `${m} ${k} ${d} ${P}`).toBeGreaterThan(0.05);
      expect(Math.abs(manual - drStablePoint(P, k, m, max))).toBeGreaterThan(0.05);
    }
    // It can agree by accident: k = 4, d = 3, P = 30 gives 0.118 against FPS 0.116.
    expect(Math.abs(libbfManualFps(30, 4, 4000) - drFalsePositive(30, 4, 4000, 7))).toBeLessThan(0.01);
  });

  it('the optimal P inverts FPS (and matches the published closed form)', () => {
    for (const fp of [0.001, 0.01, 0.1])
      for (const [k, m, max] of [
        [3, 6144, 3],
        [4, 16384, 7],
      ] as const) {
        const P = drOptimalP(fp, k, m, max);
        expect(drFalsePositive(P, k, m, max)).toBeCloseTo(fp, 10);
      }
  });
});

describe('the word-local variant', () => {
  const shape = { k: 3, d: 2, cells: 2048, cellsPerWord: 8, P: 21 };

  it("is Deng & Rafiei's stable point with m := k·cellsPerWord when k divides P", () => {
    const a = stablePoint(shape);
    const b = variantAsDengRafiei(shape);
    expect(a.zeros).toBeCloseTo(b.zeros, 12);
    expect(a.fp).toBeCloseTo(b.fp, 12);
    // With P not a multiple of k the banks differ and the product is the fp.
    const u = stablePoint({ ...shape, P: 22 });
    expect(u.perBank[0]).toBeGreaterThan(u.perBank[2]!);
    expect(u.fp).toBeCloseTo(
      u.perBank.reduce((x, z) => x * (1 - z), 1),
      12,
    );
  });

  it('the chain from an empty filter converges to the stable point; the found curve starts at 1 and falls to the stable fp', () => {
    const sp = stablePoint(shape);
    const [first, , last] = zeroCurve(shape, [0, 100, 200_000]);
    expect(first!.zeros).toBe(1);
    expect(first!.fp).toBe(0);
    expect(last!.zeros).toBeCloseTo(sp.zeros, 9);
    expect(last!.fp).toBeCloseTo(sp.fp, 9);
    const f = foundCurve(shape, [0, 1, 200_000]);
    expect(f[0]!.found).toBe(1);
    expect(f[1]!.found).toBe(1); // one later insert cannot zero a cell at Max = 3
    expect(f[2]!.found).toBeCloseTo(sp.fp, 9);
  });

  it('smallestP is the least P meeting the fp (and null when even k·cellsPerWord does not)', () => {
    const P = smallestP(shape, 0.05)!;
    expect(P).toBe(21);
    expect(stablePoint({ ...shape, P }).fp).toBeLessThanOrEqual(0.05);
    expect(stablePoint({ ...shape, P: P - 1 }).fp).toBeGreaterThan(0.05);
    expect(smallestP(shape, 0.01)).toBeNull();
  });
});

describe('experiments: measured beside the analysis (model, and the RTL in the compiled simulator)', () => {
  for (const name of presetsOf('stable')) {
    it(`${name}: found-by-age within the simultaneous 99% intervals on the model`, () => {
      const r = stableExperiments[1]!.run({ engine: 'model', seed: 2, scale: 1, params: { preset: name } });
      for (const ch of r.checks!) expect(ch.ok, ch.what).toBe(true);
    });
    it(`${name}: zeros and fp vs inserts within the simultaneous 99% intervals on the model`, () => {
      const r = stableExperiments[0]!.run({ engine: 'model', seed: 2, scale: 1, params: { preset: name } });
      for (const ch of r.checks!) expect(ch.ok, ch.what).toBe(true);
    });
  }

  it('stable_d2_k3: over 30 seeds the fp z-scores against the state are standard normal (so a miss at one seed is chance)', () => {
    const z: number[] = [];
    for (let seed = 1; seed <= 30; seed++) {
      const r = stableExperiments[0]!.run({ engine: 'model', seed, scale: 1, params: { preset: 'stable_d2_k3' } });
      const fp = r.series.find((s) => s.name === 'fp measured')!.points;
      const state = r.series.find((s) => s.name.startsWith('fp of the state'))!.points;
      const probes = r.params.probes as number;
      fp.forEach((p, i) => {
        const g = state[i]!.y;
        if (g > 0) z.push((p.y - g) / Math.sqrt((g * (1 - g)) / probes));
      });
    }
    const mean = z.reduce((a, b) => a + b, 0) / z.length;
    const variance = z.reduce((a, b) => a + (b - mean) ** 2, 0) / z.length;
    expect(z.length).toBe(30 * 16);
    expect(Math.abs(mean)).toBeLessThan(0.15);
    expect(variance).toBeGreaterThan(0.8);
    expect(variance).toBeLessThan(1.25);
  });

  it('stable_d2_k3 on the RTL (--engine sim): the same series as the model, point for point', () => {
    for (const ex of stableExperiments) {
      const o = { seed: 3, scale: 0.5, params: { preset: 'stable_d2_k3' } };
      const sim = ex.run({ ...o, engine: 'sim' });
      const model = ex.run({ ...o, engine: 'model' });
      expect(sim.series).toEqual(model.series);
      for (const ch of sim.checks!) expect(ch.ok, ch.what).toBe(true);
    }
  });

  it('the preset configs are what the README says (P the smallest for their fp target)', () => {
    const c = (n: string): StableDerived => presetConfig<StableDerived>(n);
    expect(smallestP(c('stable_d2_k3'), 0.05)).toBe(c('stable_d2_k3').P);
    expect(smallestP(c('stable_d2_k4_c16'), 0.01)).toBe(c('stable_d2_k4_c16').P);
    expect(smallestP(c('stable_d3_k4_c16'), 0.05)).toBe(c('stable_d3_k4_c16').P);
  });
});
