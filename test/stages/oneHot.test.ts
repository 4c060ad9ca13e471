/**
 * The one-hot select and OR (src/stages/oneHot.ts) against their definition on random flags:
 * one-hot flags (the router's use), none, and several (the OR of the selected words).
 */
import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { anyOf, oneHotSelect } from '../../src/stages/oneHot.js';
import { Rng } from '../../src/util/rng.js';
import { CompiledSim } from '../../sim/compiled.js';

const W = 7;

function design(n: number) {
  const m = new ModuleBuilder(`onehot${n}`);
  const sel = Array.from({ length: n }, (_, j) => m.input(`sel${j}`, 1));
  const xs = Array.from({ length: n }, (_, j) => m.input(`x${j}`, W));
  m.output('y', oneHotSelect(m, sel, xs, W));
  m.output('any', anyOf(m, sel));
  return m.build();
}

describe('oneHotSelect, anyOf', () => {
  for (const n of [0, 1, 3, 4, 8]) {
    it(`${n} inputs: the selected word (0 with none, the OR with several) and the OR of the flags`, () => {
      const sim = new CompiledSim(design(n));
      const rng = new Rng(10 + n);
      for (let t = 0; t < 500; t++) {
        const xs = Array.from({ length: n }, () => Math.floor(rng.float() * (1 << W)));
        const kind = rng.float();
        const hot = Math.floor(rng.float() * n);
        const sel = Array.from({ length: n }, (_, j) =>
          kind < 0.6 ? (j === hot ? 1 : 0) : kind < 0.8 ? 0 : rng.float() < 0.5 ? 1 : 0,
        );
        sel.forEach((s, j) => sim.poke(`sel${j}`, s));
        xs.forEach((x, j) => sim.poke(`x${j}`, x));
        sim.settle();
        const want = xs.reduce((acc, x, j) => (sel[j] ? acc | x : acc), 0);
        expect(sim.peek('y')).toBe(BigInt(want));
        expect(sim.peek('any')).toBe(sel.some((s) => s) ? 1n : 0n);
      }
    });
  }
});
