/**
 * The §6 comparison (src/experiments/dautrich/): every fast filter of a trial against the family
 * model it rewrites, driven with the same hash values (BTBF ≡ TbfModel 'shared', GBF ≡ GbfModel in
 * both layouts, Simple Buffer ≡ its linear scan), the posteriors against the families' analytics
 * (Theorems 2–5, Eq. 34, Eq. 36), the penalties and bins of whole trials against a slow reference
 * loop, the streams against Table 4, and the choice of k per technique.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decide, posterior as btbfPosterior, type BtbfShape } from '../../src/families/tbf/analysis.js';
import { TbfModel } from '../../src/families/tbf/model.js';
import { posteriorDirect, posteriorEq34, qEpsDD } from '../../src/families/gbf/analysis.js';
import { GbfModel, rotationOf, resetsAt } from '../../src/families/gbf/model.js';
import { bufferLength, bufferPosterior, priorPosterior, SimpleBuffer } from '../../src/model/baselines.js';
import { makeStream, sampleDistinct, truthOf, type Stream } from '../../src/experiments/dautrich/streams.js';
import {
  BINS,
  btbfForBudget,
  btbfTrial,
  BtbfPosterior,
  bufferTrial,
  Eq34,
  FastBtbf,
  FastGbf,
  gbfTrial,
  itemHashes,
  posteriorError,
  priorCalibration,
  priorTrial,
  reduce,
  type ItemHashes,
  type TrialInput,
  type TrialResult,
} from '../../src/experiments/dautrich/trials.js';
import { runDautrich, type DautrichRun } from '../../src/experiments/dautrich/experiments.js';
import { runExperiment } from '../../src/experiments/index.js';
import { UsageError } from '../../src/util/errors.js';

const small = (kind: 'uniform' | 'powerlaw' | 'ip', seed = 1): Stream =>
  makeStream(kind, { warmup: 3000, queries: 12000, shrink: 64, seed });

function input(s: Stream, ci = 0): TrialInput {
  const w = s.windows[ci]!;
  return { stream: s, w, inWindow: truthOf(s, w).inWindow };
}

/** A slow reference of a trial: model answers, the analytic posterior, the §2.6 decision. */
function reference(
  x: TrialInput,
  answer: (item: number, q: number | null) => { hit: boolean; p: number } | null,
): TrialResult {
  const r: TrialResult = {
    standard: 0,
    inferential: 0,
    binCount: new Float64Array(BINS),
    binYes: new Float64Array(BINS),
  };
  const s = x.stream;
  for (let i = 0; i < s.items.length; i++) {
    const q = i >= s.warmup ? i - s.warmup : null;
    const a = answer(s.items[i]!, q);
    if (q === null || !a) continue;
    const truth = x.inWindow[q] === 1;
    const fp = s.costFP[q]!;
    const fn = s.costFN[q]!;
    if (a.hit !== truth) r.standard += a.hit ? fp : fn;
    const pos = decide(a.p, fp, fn);
    if (pos !== truth) r.inferential += pos ? fp : fn;
    const l = Math.min(BINS - 1, Math.floor(a.p * BINS));
    r.binCount[l]!++;
    if (truth) r.binYes[l]!++;
  }
  return r;
}

function expectSameTrial(fast: TrialResult, slow: TrialResult): void {
  expect(fast.standard).toBeCloseTo(slow.standard, 6);
  expect(fast.inferential).toBeCloseTo(slow.inferential, 6);
  expect([...fast.binCount]).toEqual([...slow.binCount]);
  expect([...fast.binYes]).toEqual([...slow.binYes]);
}

describe('BTBF of a trial ≡ TbfModel (shared layout) and Theorems 2–5', () => {
  for (const kind of ['uniform', 'powerlaw', 'ip'] as const)
    it(`${kind}: every answer, λ, c, r, posterior and the trial's penalties`, () => {
      const s = small(kind);
      const x = input(s);
      const hashes = itemHashes(s.distinct, 7, 7);
      for (const [bpi, k] of [
        [2, 1],
        [4, 3],
        [8, 6],
      ] as const) {
        const p0 = btbfForBudget(x.w, bpi, k)!;
        // TbfModel's shared array has k·timersPerBank timers: a multiple of k.
        const p = { ...p0, m: p0.m - (p0.m % k) };
        // The model with the trial's index of each hash (TbfModel 'shared': one array of m timers).
        const model = new TbfModel({
          k,
          timersPerBank: p.m / k,
          timerBits: p.timerBits,
          window: x.w,
          blockSize: p.blockSize,
          padding: p.padding,
          keyBits: 64,
          seed: 1,
          layout: 'shared',
        });
        const idxOf = (item: number): number[] =>
          Array.from({ length: k }, (_, j) => reduce(hashes.H[item * hashes.stride + j]!, p.m));
        model.indexes = (key: bigint) => idxOf(Number(key));
        const shape: BtbfShape = { k, timersPerHash: p.m, layout: 'shared', window: x.w, blockSize: p.blockSize };
        const fast = new FastBtbf(p, x.w);
        const post = new BtbfPosterior(fast, s.D);
        let latents = 0;
        const slow = reference(x, (item, q) => {
          fast.idx.set(idxOf(item));
          let out = null;
          if (q !== null) {
            const px = s.pxValues[s.pxClass[q]!]!;
            const m = model.query(BigInt(item));
            expect(fast.query()).toBe(m.hit);
            // r_x is kept only where Theorem 3 needs it (λ = 0).
            const lat = fast.latent();
            expect({ ...lat, r: 0 }).toEqual({ ...m, r: 0 });
            if (m.lambda === 0) expect(lat.r).toBe(m.r);
            const pm = btbfPosterior(shape, s.D, px, m);
            expect(post.posterior(m.lambda, m.c, m.r, m.b, Math.log1p(-px))).toBeCloseTo(pm, 12);
            latents++;
            out = { hit: m.hit, p: pm };
          }
          model.insert(BigInt(item));
          fast.insert();
          return out;
        });
        expect(latents).toBe(s.queries);
        expect([...fast.timers]).toEqual([...model.timers]);
        if (p.m === p0.m) expectSameTrial(btbfTrial(x, p, hashes), slow);
      }
    });

  it('§6.1.2 parameters: bpt = max(3, k), least padding with ≤ k timers checked per insertion, least B', () => {
    const w = 2 ** 16;
    for (const [bpi, k] of [
      [1, 1],
      [10, 4],
      [24, 30],
    ] as const) {
      const p = btbfForBudget(w, bpi, k)!;
      expect(p.timerBits).toBe(Math.max(3, k));
      expect(p.m).toBe(Math.floor((w * bpi) / p.timerBits));
      const checked = (P: number): number => Math.ceil(p.m / (p.blockSize * (P + 1)));
      expect(checked(p.padding)).toBeLessThanOrEqual(k);
      if (p.padding > 0) expect(checked(p.padding - 1)).toBeGreaterThan(k);
      const omega = (B: number): number => Math.ceil(w / B) + 1 + Math.max(0, Math.ceil(p.m / (k * B)) - 1);
      expect(omega(p.blockSize)).toBeLessThanOrEqual(2 ** p.timerBits - 2);
      if (p.blockSize > 1) expect(omega(p.blockSize - 1)).toBeGreaterThan(2 ** p.timerBits - 2);
    }
  });
});

/** GbfModel hashing the trial's way: hash j of item x → cell, role hash → rotation. */
function gbfModelFor(hashes: ItemHashes, k: number, m: number, layout: 'shared' | 'partitioned'): GbfModel {
  const K = 2 * k;
  const model = new GbfModel({ k0: k, k1: k, m, layout, keyBits: 64, seed: 1 });
  const per = layout === 'partitioned' ? m / K : m;
  model.hash = (key: bigint) => {
    const at = Number(key) * hashes.stride;
    const rho = rotationOf(hashes.H[at + K]! >>> 16, K);
    for (let j = 0; j < K; j++) {
      const h = reduce(hashes.H[at + j]!, per);
      model.idx[j] = layout === 'partitioned' ? j * per + h : h;
      model.reset[j] = (layout === 'partitioned' ? resetsAt(j, rho, k, K) : j < k) ? 1 : 0;
    }
  };
  return model;
}

describe('GBF of a trial ≡ GbfModel and Eq. 34', () => {
  for (const layout of ['shared', 'partitioned'] as const)
    for (const kind of ['uniform', 'ip'] as const)
      it(`${layout}, ${kind}: every observation, the cells and the trial's penalties`, () => {
        const s = small(kind);
        const x = input(s);
        const hashes = itemHashes(s.distinct, 3, 13);
        // Few cells: hashes of one item meet often in the shared array.
        for (const [k, m] of [
          [1, 64],
          [3, 96],
          [6, 1200],
        ] as const) {
          const model = gbfModelFor(hashes, k, m, layout);
          const fast = new FastGbf({ k0: k, k1: k, m, layout });
          const eq = new Eq34(2 * k, qEpsDD({ k0: k, k1: k, m, layout }), x.w);
          const obs = new Int32Array(4);
          let met = 0;
          const slow = reference(x, (item, q) => {
            model.hash(BigInt(item));
            fast.idx.set(model.idx);
            fast.reset.set(model.reset);
            let out = null;
            if (q !== null) {
              const o = model.query(BigInt(item));
              fast.observe(obs);
              expect([...obs]).toEqual([o.c0, o.c1, o.r0, o.r1]);
              if (o.r0 + o.r1 < 2 * k) met++;
              const d = o.c0 + o.c1;
              const px = s.pxValues[s.pxClass[q]!]!;
              const p = posteriorEq34(d, o.r0 + o.r1 - d, px, x.w, qEpsDD({ k0: k, k1: k, m, layout }));
              expect(eq.posterior(px, d, o.r0 + o.r1 - d)).toBeCloseTo(p, 13);
              out = { hit: o.hit, p };
            }
            model.insert(BigInt(item));
            fast.insert();
            return out;
          });
          if (layout === 'shared' && k > 1) expect(met).toBeGreaterThan(0);
          if (layout === 'partitioned') expect(met).toBe(0);
          expect([...fast.cells()]).toEqual([...model.cells]);
          expectSameTrial(gbfTrial(x, { k0: k, k1: k, m, layout }, hashes), slow);
        }
      });

  it('the double-double Eq. 34 equals the direct sum of Eq. 9 where doubles fail (k = 30)', () => {
    const shape = { k0: 30, k1: 30, m: 2 ** 16 * 8, layout: 'shared' as const };
    const eq = new Eq34(60, qEpsDD(shape), 2 ** 16);
    for (const d of [0, 20, 45, 60]) {
      const direct = posteriorDirect({ ...shape, m: shape.m }, 2 ** -16, 2 ** 16, {
        c0: Math.min(30, d),
        c1: Math.max(0, d - 30),
        r0: 30,
        r1: 30,
      });
      // The paper's form (q0/(q0+q1) = 1/2) vs the exact zero share 1/(1 + (1 − 1/m)^k): close, not equal.
      expect(eq.posterior(2 ** -16, d, 60 - d)).toBeCloseTo(direct, 3);
    }
  });
});

describe('Simple Buffer and prior only', () => {
  it('the trial ≡ the linear-scan SimpleBuffer with Eq. 36', () => {
    const s = small('powerlaw');
    const x = input(s);
    const hashes = itemHashes(s.distinct, 5, 1);
    for (const [bpi, bph] of [
      [2, 1],
      [3, 7],
      [4, 21],
      [2, 30],
    ] as const) {
      const delta = bufferLength(x.w, bpi, bph);
      const buf = new SimpleBuffer(delta, bph);
      const Dd = s.D(delta);
      const slow = reference(x, (item, q) => {
        const h = buf.hashOf(hashes.H[item * hashes.stride]!);
        let out = null;
        if (q !== null) {
          const found = buf.has(h);
          out = { hit: found, p: bufferPosterior(s.pxValues[s.pxClass[q]!]!, x.w, delta, bph, Dd, found) };
        }
        buf.insert(h);
        return out;
      });
      expectSameTrial(bufferTrial(x, delta, bph, hashes), slow);
    }
  });

  it('Eq. 36 by hand, δ = ⌊w·bpi/bph⌋ at most w, and the prior', () => {
    const px = 1 / 1000;
    const q = 1 - px;
    const hit = 1 - q ** 500 / ((1 - q ** 200) / (1 - (1 - 2 ** -8) ** 150) + q ** 200);
    expect(bufferPosterior(px, 500, 200, 8, 150, true)).toBeCloseTo(hit, 12);
    expect(bufferPosterior(px, 500, 200, 8, 150, false)).toBeCloseTo(1 - q ** 300, 12);
    expect(bufferLength(1000, 3, 7)).toBe(428);
    expect(bufferLength(1000, 3, 2)).toBe(1000);
    expect(priorPosterior(px, 500)).toBeCloseTo(1 - q ** 500, 12);
    const s = small('uniform');
    const x = input(s);
    const prior = priorTrial(x);
    expect(Number.isNaN(prior.standard)).toBe(true);
    const slow = reference(x, (_, qq) => (qq === null ? null : { hit: false, p: priorPosterior(s.pxValues[0]!, x.w) }));
    expect(prior.inferential).toBeCloseTo(slow.inferential, 6);
  });
});

describe('streams (Table 4) and D(j)', () => {
  it('uniform and power law reach Table 4 Pos/Neg on the paper-length stream; the IP-like stream is calibrated to it', () => {
    for (const [kind, want] of [
      ['uniform', [1.718, 53.547]],
      ['powerlaw', [1.182, 13.451]],
      ['ip', [1.171, 8.893]],
    ] as const) {
      const s = makeStream(kind, { warmup: 2 ** 20, queries: 2 ** 22, shrink: 1, seed: 1 });
      s.windows.forEach((w, i) =>
        expect(Math.abs(truthOf(s, w).posNeg / want[i]! - 1), `${kind} w=${w}`).toBeLessThan(0.03),
      );
    }
  });

  it("the IP-like stream's prior is far off in its bursts and calibrated once the same items are shuffled (the control run)", () => {
    const o = { warmup: 2 ** 20, queries: 2 ** 22, shrink: 1, seed: 1 };
    const bursty = makeStream('ip', o);
    const shuffled = makeStream('ip', { ...o, order: 'shuffled' });
    // The same items, in another order.
    const counts = (s: Stream): number[] => {
      const c = new Array<number>(s.distinct).fill(0);
      for (const x of s.items) c[x]!++;
      return c.sort((a, b) => a - b);
    };
    expect(shuffled.distinct).toBe(bursty.distinct);
    expect(counts(shuffled)).toEqual(counts(bursty));
    let moved = 0;
    for (let i = 0; i < 1000; i++) if (shuffled.items[i] !== bursty.items[i]) moved++;
    expect(moved).toBeGreaterThan(900);
    const calibration = (s: Stream, w: number): { prior: number; truth: number; error: number } => {
      const x = { stream: s, w, inWindow: truthOf(s, w).inWindow };
      const { meanPrior, inWindow } = priorCalibration(x);
      return { prior: meanPrior, truth: inWindow, error: posteriorError(priorTrial(x)) };
    };
    for (const w of bursty.windows) {
      // Bursts: a source repeats within w far more often than its whole-stream frequency says
      // (w = 2^8: the prior's mean P(I_x < w) 0.213, 0.540 of the queries in the window).
      const b = calibration(bursty, w);
      expect(b.prior, `w=${w}`).toBeLessThan(0.8 * b.truth);
      expect(b.error).toBeGreaterThan(0.2);
      // Shuffled: p_x is a time-invariant sample probability, and the prior is right on average.
      const s = calibration(shuffled, w);
      expect(Math.abs(s.prior / s.truth - 1), `w=${w}`).toBeLessThan(0.02);
      expect(s.error).toBeLessThan(0.03);
    }
  });

  it('truth is I_x < w, counted from the last insert; D(j) is sampled as §6.4.2 says', () => {
    const s = small('ip');
    const { inWindow } = truthOf(s, 50);
    for (const q of [0, 17, 5000, 11999]) {
      const i = s.warmup + q;
      const x = s.items[i]!;
      let last = -1;
      for (let t = i - 1; t >= 0 && last < 0; t--) if (s.items[t] === x) last = t;
      expect(inWindow[q]).toBe(last >= 0 && i - 1 - last < 50 ? 1 : 0);
    }
    const pts = sampleDistinct(s.items, s.distinct);
    expect(pts[0]).toEqual([1, 1]);
    for (let i = 1; i < pts.length; i++) expect(pts[i]![1]).toBeGreaterThanOrEqual(pts[i - 1]![1]);
    expect(pts[pts.length - 1]![0]).toBe(s.items.length);
  });
});

describe('choice of k', () => {
  it("each technique takes the k with its own least penalty, independently of the others'", () => {
    const run = runDautrich({
      kind: 'uniform',
      bpiFrom: 4,
      bpiTo: 5,
      kMax: 6,
      scale: 1,
      shrink: 64,
      seed: 2,
      conditions: [0],
      gbfLayout: 'shared',
    });
    let differ = 0;
    for (const b of run.results[0]!.bpis)
      for (const pick of Object.values(b.picks)) {
        const vals = pick.byK.map((v) => v ?? Infinity);
        expect(pick.penalty).toBe(Math.min(...vals));
        expect(pick.k).toBe(vals.indexOf(pick.penalty) + 1);
      }
    for (const b of run.results[0]!.bpis)
      if (
        b.picks['BTBF standard'].k !== b.picks['BTBF inferential'].k ||
        b.picks['GBF standard'].k !== b.picks['GBF inferential'].k
      )
        differ++;
    expect(differ).toBeGreaterThan(0);
    const err = run.results[0]!.bpis[0]!.picks['BTBF inferential'].posteriorError!;
    expect(err).toBeGreaterThan(0);
    expect(err).toBeLessThan(0.5);
    void posteriorError;
  });
});

describe('bad options and --from', () => {
  const common = { engine: 'model' as const, seed: 1, scale: 1 };
  const cases: [Record<string, string>, RegExp][] = [
    [{ bpi: '8..6' }, /^--bpi must/],
    [{ bpi: '0..4' }, /^--bpi must/],
    [{ bpi: '1..65' }, /^--bpi must/],
    [{ bpi: 'x' }, /^--bpi must/],
    [{ kMax: '0' }, /^--k-max must/],
    [{ kMax: '31' }, /^--k-max must/],
    [{ shrink: '3' }, /^--shrink must be a power of two/],
    [{ shrink: '2048' }, /^--shrink must/],
    [{ condition: '3' }, /^--condition must/],
    [{ gbfLayout: 'banked' }, /^--gbf-layout must/],
    [{ figure: 'fig9' }, /^--figure must/],
    [{ order: 'random' }, /^--order must be stream or shuffled/],
    [{ order: 'shuffled' }, /^--order shuffled: only dautrich-ip/],
    [{ from: '/nonexistent/run.json' }, /^--from: cannot read/],
  ];
  for (const [given, msg] of cases)
    it(`refuses ${JSON.stringify(given)} with one line naming the option`, () => {
      let err: Error | null = null;
      try {
        runExperiment('dautrich-uniform', common, { bpi: '6..6', kMax: '2', shrink: '64', ...given }, undefined, true);
      } catch (e) {
        err = e as Error;
      }
      expect(err).toBeInstanceOf(UsageError);
      expect(err!.message).toMatch(msg);
      expect(err!.message).not.toContain('\n');
    });

  it('--from: draws a run again without recomputing, refuses another stream and mismatched sizes', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bf-dautrich-'));
    const base = { bpi: '6..6', kMax: '2', shrink: '64' };
    const c1 = runExperiment('dautrich-uniform', common, { ...base, condition: '1' }, undefined, true);
    const c2 = runExperiment('dautrich-uniform', common, { ...base, condition: '2' }, undefined, true);
    const other = runExperiment('dautrich-uniform', common, { ...base, kMax: '3', condition: '2' }, undefined, true);
    const f = (name: string, r: unknown): string => {
      const p = path.join(dir, name);
      fs.writeFileSync(p, JSON.stringify(r));
      return p;
    };
    const [p1, p2, p3] = [f('c1.json', c1), f('c2.json', c2), f('k3.json', other)];
    const both = runExperiment('dautrich-uniform', common, { from: `${p1},${p2}`, figure: 'ratio' }, undefined, true);
    expect((both.params!.run as DautrichRun).results.map((c) => c.condition)).toEqual(['[Pos≈Neg]', '[Pos>Neg]']);
    const again = runExperiment('dautrich-uniform', common, { from: p1 }, undefined, true);
    expect(again.series).toEqual(c1.series);
    expect(() => runExperiment('dautrich-powerlaw', common, { from: p1 }, undefined, true)).toThrow(
      /is not a result of dautrich-powerlaw/,
    );
    expect(() => runExperiment('dautrich-uniform', common, { from: `${p1},${p3}` }, undefined, true)).toThrow(
      /--from: the runs differ in kMax/,
    );
    expect(() => runExperiment('dautrich-uniform', common, { from: p1, condition: '2' }, undefined, true)).toThrow(
      /--condition 2: not in the --from runs/,
    );
  });
});
