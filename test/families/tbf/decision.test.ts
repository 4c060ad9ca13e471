/**
 * The decision table (what the RTL's ROM holds) against the posteriors of Theorems 2–5, and the
 * decision unit in the simulated pipeline against the standard answer on a [Pos≈Neg] stream.
 */
import { describe, expect, it } from 'vitest';
import { distinctUniform, posterior } from '../../../src/families/tbf/analysis.js';
import { deriveTbf } from '../../../src/families/tbf/config.js';
import {
  btbfShape,
  decideWord,
  decisionLayout,
  decisionTable,
  posteriorWord,
  ratioOf,
} from '../../../src/families/tbf/decision.js';
import { tbfSimulate } from '../../../src/families/tbf/stream.js';
import { driveConfig } from '../../helpers/families.js';
import { uniformWorkload } from '../../../src/model/workloads.js';

const cfg = (universe: number, timersPerBank = 256) =>
  deriveTbf({
    name: 'd',
    filter: 'btbf',
    k: 3,
    timersPerBank,
    timerBits: 8,
    window: 256,
    blockSize: 8,
    keyBits: 64,
    seed: 2,
    decision: { distinct: { kind: 'uniform', universe }, classes: [{ px: 1 / universe }, { px: 0.05 }] },
  });

describe('decision table', () => {
  const c = cfg(369);
  const table = decisionTable(c);
  const L = decisionLayout(c);
  const s = btbfShape(c);
  const D = distinctUniform(369);

  it('has one word per address of the ROM, each within posteriorBits + 1 bits', () => {
    expect(table.length).toBe(L.depth);
    expect(Math.max(...table)).toBeLessThanOrEqual(2 ** L.posteriorBits);
    expect(L.width).toBe(16);
  });

  it('holds round(P(I_x < w | R_x) · 2^15) for every (class, λ, c, b) reachable', () => {
    let checked = 0;
    c.decision!.classes.forEach(({ px }, cls) => {
      for (let b = 0; b < c.blockSize; b++) {
        const top = Math.ceil((c.window - b) / c.blockSize);
        for (let lambda = b > 0 ? 0 : 1; lambda <= top; lambda++) {
          for (let cx = lambda === 0 ? c.k : 1; cx <= c.k; cx++) {
            const p = posterior(s, D, px, { lambda, c: cx, r: c.k, b });
            expect(posteriorWord(c, table, cls, lambda, cx, b)).toBe(Math.round(p * 2 ** 15));
            checked++;
          }
        }
      }
    });
    expect(checked).toBeGreaterThan(2 * 3 * 256);
  });

  it('answers NEG for an expired key unless $FP is free, and compares the posterior with the penalty ratio', () => {
    expect(posteriorWord(c, table, 0, Infinity, 2, 3)).toBe(0);
    expect(decideWord(0, 0)).toBe(true);
    expect(decideWord(0, 1)).toBe(false);
    // $FP = $FN: Pos iff p >= 1/2.
    const half = ratioOf(1, 1, 15);
    expect(half).toBe(2 ** 14);
    expect(decideWord(2 ** 14, half)).toBe(true);
    expect(decideWord(2 ** 14 - 1, half)).toBe(false);
  });
});

describe('decision unit in the pipeline, [Pos≈Neg] uniform stream, penalties uniform in [1, 10)', () => {
  for (const timersPerBank of [64, 256]) {
    it(`${timersPerBank} timers per bank: the inferential answers cost less in total than the standard ones`, () => {
      // 1 − (1 − 1/369)^256 ≈ 1/2: half the queried keys are in the window.
      const c = cfg(369, timersPerBank);
      const hooks = tbfSimulate.hooks(c, { penalties: 'random' })!;
      const r = driveConfig(c, {
        ops: 40_000,
        seed: 4,
        mix: { query: 0, insert: 0, testAndInsert: 1 },
        exactWindow: true,
        hooks,
        workload: uniformWorkload(64, 369),
      });
      expect(r.finished).toBe(true);
      expect(r.mismatches).toEqual([]);
      expect(r.window!.falseNegatives).toBe(0);
      expect(r.window!.inWindow / r.ops).toBeGreaterThan(0.4);
      expect(r.window!.inWindow / r.ops).toBeLessThan(0.6);
      const { penalties } = hooks.report() as { penalties: { scored: number; standard: number; inferential: number } };
      expect(penalties.scored).toBe(40_000);
      expect(penalties.inferential).toBeLessThan(penalties.standard);
    });
  }
});
