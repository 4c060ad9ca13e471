/**
 * Analytics of the persistent filters (Peng et al. §3.1, §5) and the experiments of §7: Eq. 4,
 * the partitioned filter's rate against a measurement, β-opt's Lagrange conditions (Eq. 10–13),
 * Theorem 5.5's bound (Eq. 14), and the pbf-* experiments' checks (measured beside analytic).
 */
import { describe, expect, it } from 'vitest';
import {
  betaOpt,
  bitsForRangeFp,
  filterFp,
  hashesFor,
  LN2,
  pbf2BestCaseBits,
  pbf2BestCaseFp,
  pbf2RangeFp,
  probesPerLevel,
  sbfRangeFp,
} from '../../../src/families/pbf/analysis.js';
import { levelItems, pbfExperiments, temporalStream, visited } from '../../../src/families/pbf/experiments.js';
import { keyBytes, LevelledModel } from '../../../src/families/pbf/model.js';

describe('pbf analytics', () => {
  it('Eq. 4: SBF range fp = 1 - (1 - p)^|q|; 1024 probes at p = 0.011 exceed 80 % (§7)', () => {
    expect(sbfRangeFp(0.1, 1)).toBeCloseTo(0.1, 12);
    expect(sbfRangeFp(0.1, 2)).toBeCloseTo(0.19, 12);
    // m/n = 9.4 bits per pair at the optimal k: p(b) = 0.6185^9.4 (Eq. 3).
    expect(sbfRangeFp(0.6185 ** 9.4, 1024)).toBeGreaterThan(0.8);
  });

  it('one level: the measured rate of a k-slice filter is (1 - (1 - 1/s)^d)^k within 4 sd', () => {
    const m = new LevelledModel('pbf2', [{ height: 0, k: 3, sliceBits: 1024 }], {
      seed: 1,
      keyBits: 32,
      timeBits: 0,
      horizon: 1,
    });
    const d = 700;
    for (let i = 0; i < d; i++) m.insert(keyBytes(BigInt(i), 32), 0);
    let hits = 0;
    const N = 20000;
    for (let i = 0; i < N; i++) if (m.query(keyBytes(BigInt(1_000_000 + i), 32), 0, 0)) hits++;
    const p = filterFp(3, 1024, d);
    expect(Math.abs(hits / N - p)).toBeLessThan(4 * Math.sqrt((p * (1 - p)) / N));
  });

  it('β-opt (Eq. 10, 12/13): Σ m_i = m, equal marginal gain across filters, 0 bits where f_i or d_i is 0, better than equal', () => {
    const d = [1000, 500, 250, 100, 0];
    const f = [2, 1.5, 1, 0, 1];
    const m = 8000;
    const bits = betaOpt(d, f, m);
    expect(bits.reduce((a, b) => a + b, 0)).toBeCloseTo(m, 3);
    expect(bits[3]).toBe(0);
    expect(bits[4]).toBe(0);
    // Stationarity: f_i p_i ln²2 / (d_i (1 − p_i)) is the same μ for every filter with bits.
    const mu = bits.slice(0, 3).map((b, i) => {
      const p = Math.exp((-LN2 * LN2 * b) / d[i]!);
      return (f[i]! * p * LN2 * LN2) / (d[i]! * (1 - p));
    });
    for (const x of mu) expect(x / mu[0]!).toBeCloseTo(1, 6);
    const objective = (bs: number[]) =>
      bs.reduce(
        (s, b, i) => s + (d[i]! > 0 && f[i]! > 0 ? f[i]! * Math.log(1 - Math.exp((-LN2 * LN2 * b) / d[i]!)) : 0),
        0,
      );
    expect(objective(bits)).toBeGreaterThan(objective(d.map(() => m / d.length)));
    expect(hashesFor(1000, 100)).toBe(7); // ⌈10 ln 2⌉
    expect(hashesFor(10_000, 10)).toBe(16); // k_max (§7)
  });

  it('cover probes per level are at most 2 (§5.2), and Theorem 5.5 (Eq. 14) sizes a PBF-2 that meets its fp', () => {
    const f = probesPerLevel(4096, 12, 128);
    for (const x of f) expect(x).toBeLessThanOrEqual(2);
    const n = 1000;
    const p = 0.05;
    const m = bitsForRangeFp(n, 4096, p, 128);
    // Split over the log T levels, every level with n items at the optimal k: the fp at |q| is at most p.
    const perLevel = m / 12;
    const k = hashesFor(perLevel, n);
    const lp = filterFp(k, perLevel / k, n);
    expect(pbf2RangeFp(4096, 12, 128, () => lp)).toBeLessThanOrEqual(p * 1.05);
  });
});

describe("Eq. 8's best case (the densest stream)", () => {
  it('samples every start parity at large T: the leaf is probed in about every |q| = 128 query', () => {
    // Start times with an even stride would never probe the leaf at the start (f_0 near 0.5).
    const f = probesPerLevel(86_400, 17, 128);
    expect(f[0]!).toBeGreaterThan(0.9);
    expect(f[0]!).toBeLessThan(1.1);
  });

  it("is a lower bound: a real stream with the same n, n' and bits has β2-opt at or above it", () => {
    const st = temporalStream('weblog', 4096, 8000, 3);
    const n = st.pairs.length;
    const d = levelItems(st);
    const f = probesPerLevel(4096, 12, 128);
    for (const bpp of [6, 12, 24]) {
      const bits = betaOpt(d, f, bpp * n);
      const p = bits.map((b, h) => {
        const k = hashesFor(Math.floor(b), d[h]!);
        return k === 0 ? 1 : filterFp(k, Math.floor(b / k), d[h]!);
      });
      const actual = pbf2RangeFp(4096, 12, 128, (h) => p[h]!);
      const best = pbf2BestCaseFp(n, st.times.size, 4096, 128, bpp * n);
      expect(best).toBeLessThanOrEqual(actual + 1e-9);
      expect(best).toBeGreaterThan(0);
    }
    // And the bits it needs for a rate are the bits at which it reaches that rate.
    const b5 = pbf2BestCaseBits(n, st.times.size, 4096, 128, 0.05);
    expect(pbf2BestCaseFp(n, st.times.size, 4096, 128, b5 * n)).toBeLessThanOrEqual(0.05);
    expect(pbf2BestCaseFp(n, st.times.size, 4096, 128, 0.95 * b5 * n)).toBeGreaterThan(0.05);
  });
});

describe('pbf-* experiments (scaled down)', () => {
  it('generated streams: every pair distinct and in time order; negative queries are negative', () => {
    for (const kind of ['weblog', 'network'] as const) {
      const st = temporalStream(kind, 1024, 3000, 2);
      expect(st.pairs.length).toBeGreaterThan(2000);
      const seen = new Set(st.pairs.map((p) => `${p.key}:${p.t}`));
      expect(seen.size).toBe(st.pairs.length);
      for (let i = 1; i < st.pairs.length; i++) expect(st.pairs[i]!.t).toBeGreaterThanOrEqual(st.pairs[i - 1]!.t);
      expect(visited(st, st.pairs[0]!.key, st.pairs[0]!.t, st.pairs[0]!.t)).toBe(true);
    }
  });

  it('pbf-q and pbf-cost: measured agrees with analytic for every method; SBF above 80 % at |q| = 1024 (§7); Thm 5.4', () => {
    const byName = (n: string) => pbfExperiments.find((e) => e.name === n)!;
    const q = byName('pbf-q').run({ engine: 'model', seed: 1, scale: 0.3, params: {} });
    const ok = (r: typeof q, what: string) => r.checks!.find((c) => c.what.includes(what))!.ok;
    for (const c of q.checks!.filter((x) => x.what.includes('analytic rate'))) expect(c.ok, c.what).toBe(true);
    expect(ok(q, 'fp above 80 %')).toBe(true);
    expect(q.series.filter((s) => s.kind === 'measured')).toHaveLength(6);
    expect(ok(q, 'below SBF at |q| = 1024')).toBe(true);
    expect(ok(q, 'best case')).toBe(true);
    const cost = byName('pbf-cost').run({ engine: 'model', seed: 1, scale: 0.3, params: {} });
    expect(ok(cost, 'Thm 5.4')).toBe(true);
    expect(ok(cost, 'Σ_{i<|q|} (1 − p)^i')).toBe(true);
  });

  it("pbf-m: SBF and PBF-2 in Eq. 4/Eq. 8's order at every m; the paper's scale in Eq. 8's best case beside them", () => {
    const m = pbfExperiments.find((e) => e.name === 'pbf-m')!.run({ engine: 'model', seed: 1, scale: 0.3, params: {} });
    const ok = (what: string) => m.checks!.find((c) => c.what.includes(what))!.ok;
    expect(ok('the order Eq. 4 and Eq. 8 give')).toBe(true);
    expect(ok('best case')).toBe(true);
    expect(ok("at the paper's m")).toBe(true);
    const edgar = m.series.find((s) => s.name.includes('EDGAR'))!;
    // §7 reads β2-opt at about 1 % for m = 2·10^7; Eq. 8 cannot go below a third there.
    expect(edgar.points[0]!.y).toBeGreaterThan(0.3);
    for (let i = 1; i < edgar.points.length; i++) expect(edgar.points[i]!.y).toBeLessThan(edgar.points[i - 1]!.y);
  });
});

describe('pbf-* options', () => {
  it('a bad value is refused naming its flag (UsageError, exit 2), before any work', () => {
    const run = (params: Record<string, string>) => () =>
      pbfExperiments.find((e) => e.name === 'pbf-q')!.run({ engine: 'model', seed: 1, scale: 1, params });
    expect(run({ horizon: '0' })).toThrow(/--horizon: an integer/);
    expect(run({ horizon: 'abc' })).toThrow(/--horizon/);
    expect(run({ data: 'foo' })).toThrow(/--data: 'weblog' or 'network'/);
    expect(run({ pairs: '-3' })).toThrow(/--pairs/);
    expect(run({ queries: '0' })).toThrow(/--queries/);
    expect(run({ bitsPerPair: '0' })).toThrow(/--bits-per-pair/);
    let err: unknown;
    try {
      run({ data: 'foo' })();
    } catch (e) {
      err = e;
    }
    expect((err as { exitCode?: number }).exitCode).toBe(2);
  });
});
