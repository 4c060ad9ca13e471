/**
 * The inferential GBF's decision unit (Dautrich & Ravishankar §5.3, §2.6): the posterior ROM equals
 * Eq. 34 as printed entry by entry (k0 = k1: d = c0 + c1, e = k0 + k1 − d, q_ε = 1 − K/m of the
 * partitioned banks), and the closed form without the 1/2 step (= the direct sum of Eq. 9) when
 * k0 ≠ k1; the generated Verilog holds exactly that ROM; decisions follow the minimum expected
 * penalty up to the ratio's quantisation.
 */
import { describe, expect, it } from 'vitest';
import { posterior, posteriorDirect, posteriorEq34, qEpsDD } from '../../../src/families/gbf/analysis.js';
import { deriveGbf } from '../../../src/families/gbf/config.js';
import {
  gbfDecide,
  gbfDecisionLayout,
  gbfDecisionTable,
  gbfRatioOf,
  gbfRomAddress,
  gbfShape,
} from '../../../src/families/gbf/decision.js';
import { buildGbf } from '../../../src/families/gbf/rtl.js';
import type { GbfDerived } from '../../../src/families/gbf/types.js';
import { presetConfig, presetsOf } from '../../helpers/families.js';

const presets = presetsOf('gbf').map((n) => presetConfig<GbfDerived>(n));
const withDecision = presets.filter((c) => c.decision !== null);

describe('the posterior ROM', () => {
  it('there is a decision-unit preset with k0 = k1 and several classes (windows and priors)', () => {
    expect(withDecision.length).toBeGreaterThan(0);
    for (const c of withDecision) {
      expect(c.k0).toBe(c.k1);
      expect(new Set(c.decision!.classes.map((k) => k.window)).size).toBeGreaterThan(1);
      expect(new Set(c.decision!.classes.map((k) => k.px)).size).toBeGreaterThan(1);
    }
  });

  for (const c of withDecision)
    it(`${c.name}: every word is round(Eq. 34 · 2^posteriorBits), and the Verilog's ROM holds those words`, () => {
      const L = gbfDecisionLayout(c);
      const table = gbfDecisionTable(c);
      const K = c.k0 + c.k1;
      // Eq. 34 with the partitioned filter's q_ε = 1 − K/m.
      const qe = qEpsDD(gbfShape(c));
      let checked = 0;
      c.decision!.classes.forEach((k, cls) => {
        for (let c0 = 0; c0 <= c.k0; c0++)
          for (let c1 = 0; c1 <= c.k1; c1++) {
            const d = c0 + c1;
            const want = Math.round(posteriorEq34(d, K - d, k.px, k.window, qe) * 2 ** L.posteriorBits);
            expect(table[gbfRomAddress(L, cls, c0, c1)], `${k.name} c0=${c0} c1=${c1}`).toBe(want);
            checked++;
          }
      });
      expect(checked).toBe(c.decision!.classes.length * (c.k0 + 1) * (c.k1 + 1));
      const rom = buildGbf(c).cells.find((x) => x.kind === 'memory' && x.name === 'posterior');
      expect(rom?.kind).toBe('memory');
      if (rom?.kind !== 'memory') return;
      expect(rom.depth).toBe(L.depth);
      expect(rom.width).toBe(L.posteriorBits + 1);
      expect([...(rom.init ?? [])].map(Number)).toEqual(table);
    });

  it('k0 ≠ k1: the words are the closed form without the 1/2 step, which the direct sum of Eq. 9 confirms', () => {
    const c = deriveGbf({
      name: 'uneven',
      filter: 'gbf',
      k0: 2,
      k1: 5,
      cellsPerBank: 64,
      window: 300,
      keyBits: 32,
      seed: 1,
      decision: { classes: [{ px: 1 / 400 }, { px: 1 / 50, window: 80 }], posteriorBits: 12 },
    });
    const L = gbfDecisionLayout(c);
    const table = gbfDecisionTable(c);
    const s = gbfShape(c);
    c.decision!.classes.forEach((k, cls) => {
      for (let c0 = 0; c0 <= c.k0; c0++)
        for (let c1 = 0; c1 <= c.k1; c1++) {
          const x = { c0, c1, r0: c.k0, r1: c.k1 };
          const word = table[gbfRomAddress(L, cls, c0, c1)]!;
          expect(word).toBe(Math.round(posterior(s, k.px, k.window, x) * 2 ** 12));
          expect(Math.abs(word - posteriorDirect(s, k.px, k.window, x) * 2 ** 12)).toBeLessThanOrEqual(0.5 + 1e-6);
        }
    });
    // Unused addresses (c0 > k0 or c1 > k1) hold 0.
    expect(table[gbfRomAddress(L, 0, 3, 0)]).toBe(0);
  });
});

describe('decisions (§2.6)', () => {
  it('Pos iff word ≥ ⌊$FP/($FP+$FN)·2^b⌋: the minimum expected penalty up to one step of the ratio', () => {
    const b = 15;
    let seed = 1;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 20_000; i++) {
      const fp = 1 + 9 * rnd();
      const fn = 1 + 9 * rnd();
      const p = rnd();
      const word = Math.round(p * 2 ** b);
      const exact = fp * (1 - p) <= fn * p;
      const ratio = fp / (fp + fn);
      if (Math.abs(p - ratio) > 2 ** -(b - 1)) expect(gbfDecide(word, gbfRatioOf(fp, fn, b))).toBe(exact);
    }
    expect(gbfRatioOf(1, 0.0000001, 4)).toBe(15); // never 2^b: a posterior of 1 always answers Pos
  });
});
