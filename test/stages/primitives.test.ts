/**
 * The cell-saving forms of two primitives compute what the per-bit forms do: the thermometer
 * counter stepped word-wide and the mux tree with each select bit sliced once, run side by side on
 * random inputs in the compiled simulator, against a plain count and plain indexing.
 */
import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { advanceTime, muxTree, thermometer } from '../../src/stages/primitives.js';
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

describe('primitives: advanceTime', () => {
  // (t, b) advanced by n: b' = (b + n) mod B, t' = (t + ⌊(b + n)/B⌋) mod wrap, for every t < wrap,
  // b < B and n <= nMax — in the form that selects among t + k (nMax giving at most 3 steps) and
  // in the adder form (no nMax), side by side.
  it.each([
    // [t bits, wrap, block, n bits, nMax]: the selecting form for all but the last two
    [4, 11, 16, 4, 8], // BTBF: steps 0..1
    [4, 11, 4, 4, 8], // steps 0..2
    [3, 7, 1, 2, 2], // TBF (block 1): steps 0..2
    [3, 5, 1, 2, 3], // steps 0..3, one of them = wrap - 2
    [3, 4, 2, 3, 6], // steps 0..3 with wrap 4
    [4, 13, 1, 4, 8], // 8 steps: the adder form
    [4, 11, 2, 4, 9], // 5 steps: the adder form
  ])('t %i bits wrap %i, block %i, n %i bits up to %i', (tBits, wrap, block, nBits, nMax) => {
    const m = new ModuleBuilder(`adv_${wrap}_${block}_${nMax}`);
    const t = m.input('t', tBits);
    const bBits = Math.log2(block);
    const b = bBits > 0 ? m.input('b', bBits) : null;
    const n = m.input('n', nBits);
    const fast = advanceTime(m, { t, b, n, wrap, nMax });
    const plain = advanceTime(m, { t, b, n, wrap });
    m.output('t_fast', fast.t);
    m.output('t_plain', plain.t);
    if (b) m.output('b_fast', fast.b!);
    const sim = new CompiledSim(m.build());
    for (let tv = 0; tv < wrap; tv++)
      for (let bv = 0; bv < block; bv++)
        for (let nv = 0; nv <= nMax; nv++) {
          sim.poke('t', tv);
          if (b) sim.poke('b', bv);
          sim.poke('n', nv);
          sim.settle();
          const g = bv + nv;
          const want = BigInt((tv + Math.floor(g / block)) % wrap);
          expect(sim.peek('t_fast'), `t ${tv} b ${bv} n ${nv}`).toBe(want);
          expect(sim.peek('t_plain')).toBe(want);
          if (b) expect(sim.peek('b_fast')).toBe(BigInt(g % block));
        }
  });
});
