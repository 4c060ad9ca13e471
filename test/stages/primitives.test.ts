/**
 * The cell-saving forms of two primitives compute what the per-bit forms do: the thermometer
 * counter stepped word-wide and the mux tree with each select bit sliced once, run side by side on
 * random inputs in the compiled simulator, against a plain count and plain indexing.
 */
import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { muxTree, thermometer } from '../../src/stages/primitives.js';
import { Rng } from '../../src/util/rng.js';
import { CompiledSim } from '../../sim/compiled.js';

const ENTRIES = 8;

function design(max: number) {
  const m = new ModuleBuilder(`prims_${max}`);
  const inc = m.input('inc', 1);
  const dec = m.input('dec', 1);
  const sel = m.input('sel', 3);
  const xs = Array.from({ length: ENTRIES }, (_, i) => m.input(`x${i}`, 5));
  const bits = thermometer(m, 't_bits', max);
  const word = thermometer(m, 't_word', max, { wordWide: true });
  m.output('bits_next', bits.step(inc, dec));
  m.output('word_next', word.step(inc, dec));
  m.output('bits', bits.value);
  m.output('word', word.value);
  m.output('tree', muxTree(m, xs, sel));
  m.output('tree_once', muxTree(m, xs, sel, { sliceOnce: true }));
  return m.build();
}

describe('primitives: the cell-saving forms', () => {
  for (const max of [1, 2, 5, 16]) {
    it(`thermometer of ${max} word-wide ≡ per bit ≡ a count (clamped to 0..${max}); mux tree sliced once ≡ per mux ≡ xs[sel]`, () => {
      const sim = new CompiledSim(design(max));
      const rng = new Rng(max);
      let count = 0;
      const therm = (n: number): bigint => (1n << BigInt(n)) - 1n;
      for (let cycle = 0; cycle < 3000; cycle++) {
        // Bias towards filling up and draining, so both ends are reached.
        const phase = Math.floor(cycle / 200) % 2 === 0;
        const inc = rng.float() < (phase ? 0.7 : 0.3) ? 1 : 0;
        const dec = rng.float() < (phase ? 0.3 : 0.7) ? 1 : 0;
        const sel = Math.floor(rng.float() * ENTRIES);
        const xs = Array.from({ length: ENTRIES }, () => Math.floor(rng.float() * 32));
        sim.poke('inc', inc);
        sim.poke('dec', dec);
        sim.poke('sel', sel);
        xs.forEach((x, i) => sim.poke(`x${i}`, x));
        sim.settle();
        expect(sim.peek('word')).toBe(therm(count));
        expect(sim.peek('bits')).toBe(therm(count));
        const next = Math.min(max, Math.max(0, count + inc - dec));
        expect(sim.peek('word_next')).toBe(therm(next));
        expect(sim.peek('bits_next')).toBe(therm(next));
        expect(sim.peek('tree_once')).toBe(BigInt(xs[sel]!));
        expect(sim.peek('tree')).toBe(BigInt(xs[sel]!));
        sim.step();
        count = next;
      }
    });
  }
});
