/**
 * The WebAssembly loop computes a mux tree that picks a field of one word by an index (`muxTree`
 * over consecutive slices) as one shift (sim/wasm.ts, fieldSelects). Which trees it takes, and
 * that the shift gives what the tree gives: the loop's outputs against the reference interpreter,
 * every cycle, on random words and indices.
 */
import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { muxTree } from '../../src/stages/primitives.js';
import { CompiledSim } from '../../sim/compiled.js';
import { runTrace } from '../../sim/engine.js';
import { Interpreter } from '../../sim/interp.js';
import { planLifts } from '../../sim/lift.js';
import { packRows, randomStimulus, unpackRows } from '../../sim/stimulus.js';
import { fieldSelects } from '../../sim/wasm.js';
import { compareTraces, formatComparison } from '../../sim/cosim/compare.js';
import type { Design } from '../../src/ir/types.js';

/** Fields of `w` bits of a `width`-bit input from bit `base`, picked by the low bits of `sel`. */
function design(o: { width: number; base: number; w: number; n: number; selBits: number; order?: number[] }) {
  const m = new ModuleBuilder(`fields_${o.width}_${o.base}_${o.w}_${o.n}`);
  const word = m.input('word', o.width);
  const sel = m.input('sel', o.selBits);
  const fields = Array.from({ length: o.n }, (_, i) => word.slice(o.base + (i + 1) * o.w - 1, o.base + i * o.w));
  const xs = (o.order ?? fields.map((_, i) => i)).map((i) => fields[i]!);
  m.output('tree', muxTree(m, xs, sel));
  m.output('tree_once', muxTree(m, xs, sel, { sliceOnce: true }));
  return m.build();
}

function expectLoopEqualsInterpreter(d: Design, fieldBits: number): void {
  const cycles = 2000;
  const stim = randomStimulus(d, cycles, 5);
  const sim = new CompiledSim(d, { engine: 'wasm' });
  const out = new Uint32Array(cycles * sim.layout.outputWords);
  sim.runBatch(packRows(d, d.inputs, stim), cycles, out);
  const ref = runTrace(new Interpreter(d), stim);
  const cmp = compareTraces(d, ['wasm loop', 'interp'], unpackRows(d, d.outputs, out, cycles), ref);
  expect(cmp.count, formatComparison(cmp, d)).toBe(0);
  // The trace holds many field values (a constant index would hide a wrong shift).
  expect(new Set(ref.map((row) => row.join())).size).toBe(2 ** fieldBits);
}

describe('wasm loop: a mux tree picking a field of a word is one shift', () => {
  const cases = [
    { what: '8 fields of 4 bits of a 32-bit word', width: 32, base: 0, w: 4, n: 8, selBits: 3 },
    { what: '4 fields of 5 bits from bit 3, index the low 2 bits of 6', width: 24, base: 3, w: 5, n: 4, selBits: 6 },
    { what: '16 single bits', width: 16, base: 0, w: 1, n: 16, selBits: 4 },
    { what: '32 single bits of a 32-bit word', width: 32, base: 0, w: 1, n: 32, selBits: 5 },
  ];
  for (const c of cases)
    it(`${c.what}: taken (both tree forms), and equal to the tree`, () => {
      const d = design(c);
      const found = [...fieldSelects(d, planLifts(d)).values()];
      expect(found).toHaveLength(2);
      for (const f of found) expect(f).toMatchObject({ base: c.base, w: c.w, idxBits: Math.log2(c.n) });
      expectLoopEqualsInterpreter(d, c.w);
    });

  it('fields out of order, a word over 32 bits, two fields: not taken, and still right', () => {
    const swapped = design({ width: 32, base: 0, w: 4, n: 8, selBits: 3, order: [1, 0, 2, 3, 5, 4, 6, 7] });
    expect(fieldSelects(swapped, planLifts(swapped)).size).toBe(0);
    expectLoopEqualsInterpreter(swapped, 4);
    const wide = design({ width: 40, base: 0, w: 5, n: 8, selBits: 3 });
    expect(fieldSelects(wide, planLifts(wide)).size).toBe(0);
    expectLoopEqualsInterpreter(wide, 5);
    const two = design({ width: 8, base: 0, w: 4, n: 2, selBits: 1 });
    expect(fieldSelects(two, planLifts(two)).size).toBe(0);
  });
});
