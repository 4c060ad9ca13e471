/**
 * The paper's experiments on the reference model (which the simulator equals, see the verify
 * tests): Fig. 6 (false positives over a window of 10^3 with 10^4 distinct inserts) and the query
 * access counts of Table 2, both against the §5.3/§5.4 recursions evaluated at the fill ratios
 * the configs really reach just before a shift.
 */
import { describe, expect, it } from 'vitest';
import {
  accessesFalse,
  accessesFalsePositive,
  accessesWindow,
  falsePositiveRate,
  queryAccesses,
  realFillRatios,
} from '../../../src/families/apbf/analysis.js';
import { deriveApbf } from '../../../src/families/apbf/config.js';
import type { ApbfDerived } from '../../../src/families/apbf/types.js';
import { ApbfModel } from '../../../src/families/apbf/model.js';
import { loadPreset } from '../../../src/config/resolve.js';
import { distinctWorkload } from '../../../src/model/workloads.js';
import { Rng } from '../../../src/util/rng.js';

/** Student t quantile for a two-sided 99% interval (df >= 10 ⇒ at most 3.17). */
const T99 = 3.17;

interface Sample {
  fp: number[];
  accFalse: number[];
  accFp: number[];
  accWindow: number[];
}

/** Insert `inserts` distinct keys; just before every shift after steady state, probe. */
function measure(c: ApbfDerived, inserts: number, probes: number, windowProbes = 0): Sample {
  const model = new ApbfModel(c);
  const ins = distinctWorkload(c.keyBits, 0);
  const fresh = distinctWorkload(c.keyBits, 2 ** 40); // never inserted
  const rng = new Rng(1);
  const recent: bigint[] = [];
  const out: Sample = { fp: [], accFalse: [], accFp: [], accWindow: [] };
  for (let i = 0; i < inserts; i++) {
    const key = ins.nextKey(rng);
    model.insert(key);
    recent.push(key);
    if (recent.length > c.l * c.generation) recent.shift();
    if (model.count !== c.generation || model.shifts < c.k + c.l + c.spares) continue;
    let hits = 0;
    let accF = 0;
    let accT = 0;
    for (let j = 0; j < probes; j++) {
      const q = model.queryWithAccesses(fresh.nextKey(rng));
      if (q.hit) {
        hits++;
        accT += q.accesses;
      } else accF += q.accesses;
    }
    out.fp.push(hits / probes);
    out.accFalse.push(accF / (probes - hits));
    if (hits > 0) out.accFp.push(accT / hits);
    if (windowProbes) {
      let acc = 0;
      for (let j = 0; j < windowProbes; j++) {
        const q = model.queryWithAccesses(recent[Math.floor(rng.float() * recent.length)]!);
        expect(q.hit).toBe(true);
        acc += q.accesses;
      }
      out.accWindow.push(acc / windowProbes);
    }
  }
  return out;
}

function meanSe(xs: number[]): { mean: number; se: number } {
  const n = xs.length;
  const mean = xs.reduce((s, x) => s + x, 0) / n;
  const v = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1);
  return { mean, se: Math.sqrt(v / n) };
}

function expectWithin(xs: number[], analytic: number, what: string): void {
  const { mean, se } = meanSe(xs);
  expect(xs.length, what).toBeGreaterThanOrEqual(10);
  expect(Math.abs(mean - analytic), `${what}: measured ${mean} ± ${se}, analytic ${analytic}`).toBeLessThanOrEqual(
    T99 * se,
  );
}

describe('Fig. 6: false positives just before shifts, window 10^3, 10^4 distinct inserts', () => {
  // The lowest (k, l) of Table 2 for aimed fp 0.1, 0.01, 0.001, and an APBBF, sized for w = 1000.
  const cases: [string, Record<string, unknown>, number][] = [
    ['APBF k=4 l=3', { filter: 'apbf', k: 4, l: 3, generation: 334 }, 2_000],
    ['APBF k=7 l=5', { filter: 'apbf', k: 7, l: 5, generation: 200 }, 10_000],
    ['APBF k=10 l=7', { filter: 'apbf', k: 10, l: 7, generation: 143 }, 40_000],
    [
      'APBBF k=2 l=5 B=512 b=4',
      { filter: 'apbbf', k: 2, l: 5, blockBits: 512, bitsPerBlock: 4, generation: 200 },
      4_000,
    ],
  ];
  for (const [what, cfg, probes] of cases) {
    it(`${what}: measured fp within the 99% confidence interval of the recursion at the real fill ratios`, () => {
      const c = deriveApbf({ name: 'fig6', keyBits: 64, seed: 11, ...cfg });
      expect(c.window).toBeGreaterThanOrEqual(1000);
      const s = measure(c, 10_000, probes);
      const r = realFillRatios(c.k, c.l, c.segmentBits, c.generation, c.blockBits, c.bitsPerBlock);
      expectWithin(s.fp, falsePositiveRate(r, c.k, c.l), `${what} fp`);
    });
  }
});

describe("Table 2's query accesses, measured by the model's counters", () => {
  for (const name of ['apbf_k4_l3', 'apbf_k10_l7']) {
    it(`${name}: false, false-positive and window queries match the recursion at the real fill ratios`, () => {
      const c = deriveApbf(loadPreset(name));
      const s = measure(c, c.generation * (c.k + c.l + 1 + 25), name === 'apbf_k4_l3' ? 1500 : 3000, 300);
      const r = realFillRatios(c.k, c.l, c.segmentBits, c.generation);
      expectWithin(s.accFalse, accessesFalse(r, c.k, c.l), `${name} false`);
      expectWithin(s.accWindow, accessesWindow(r, c.k, c.l), `${name} window`);
      if (name === 'apbf_k4_l3') expectWithin(s.accFp, accessesFalsePositive(r, c.k, c.l), `${name} fp`);
      expect(queryAccesses(r, c.k, c.l).pTrue).toBeCloseTo(falsePositiveRate(r, c.k, c.l), 12);
    });
  }
});
