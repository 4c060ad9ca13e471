/**
 * Forms of the WebAssembly cycle loop (sim/wasm.ts) that differ from the plain cell-by-cell code,
 * each against the reference interpreter every cycle on random inputs:
 * - a mux tree picking a field of one word by an index (`muxTree` over slices at a constant
 *   distance) is one shift, one picking a register of a bank one load (`indexedSelects`): which
 *   trees are taken, and that the shift or load gives what the tree gives;
 * - a select whose condition is a bit of another net tests the bit in place (bits 0, 31, 40);
 * - a state word read far apart in the cycle is loaded again (RELOAD_DISTANCE);
 * - a bank of registers written at decoded indices (`indexedWrites`: one-hot decoders, a priority
 *   chain of their data, as the lane reorder queues were built; the response queues' answers had
 *   one writer until 9b72a7a made their write slot one-hot registers) is one store per writer: which banks are taken, in which writer order, and that the stores give what the entries' logic
 *   gives, collisions between writers included.
 */
import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { muxTree } from '../../src/stages/primitives.js';
import { planLifts } from '../../sim/lift.js';
import { packRows, randomStimulus, unpackRows } from '../../sim/stimulus.js';
import { CompiledSim } from '../../sim/compiled.js';
import { compareTraces, formatComparison } from '../../sim/cosim/compare.js';
import { runTrace } from '../../sim/engine.js';
import { Interpreter } from '../../sim/interp.js';
import { indexedSelects, indexedWrites } from '../../sim/wasm.js';
import { layoutOf } from '../../sim/codegen.js';
import { expectBatchedEqual } from '../helpers/batched.js';
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

const found = (d: Design) => [...indexedSelects(d, layoutOf(d), planLifts(d)).values()];

/**
 * A bank of `n` registers of `width` bits: `wr_en` writes `wr_data` into register `wr_idx`; the
 * outputs read register `rd_idx` through a mux tree (both forms). `adjacent`: the registers are
 * made one after the other (their words adjacent in V, nets being laid out in the order made);
 * else each with its enable logic and a 3-bit register made between two of them.
 */
function bank(n: number, width: number, adjacent: boolean) {
  const m = new ModuleBuilder(`bank_${n}_${width}_${adjacent}`);
  const bits = Math.log2(n);
  const wrEn = m.input('wr_en', 1);
  const wrIdx = m.input('wr_idx', bits);
  const wrData = m.input('wr_data', width);
  const rdIdx = m.input('rd_idx', bits);
  const hit = (j: number) => wrEn.and(wrIdx.eq(m.const(j, bits)));
  let regs;
  if (adjacent) {
    regs = Array.from({ length: n }, (_, j) => m.reg(`r${j}`, width));
    regs.forEach((r, j) => r.next(m.mux(hit(j), wrData, r)));
  } else
    regs = Array.from({ length: n }, (_, j) => {
      const r = m.reg(`r${j}`, width, { en: hit(j) });
      r.next(wrData);
      m.reg(`s${j}`, 3).next(wrData.slice(2, 0));
      return r;
    });
  m.output('tree', muxTree(m, regs, rdIdx));
  m.output('tree_once', muxTree(m, regs, rdIdx, { sliceOnce: true }));
  return m.build();
}

function expectLoopEqualsInterpreter(d: Design, minDistinct: number): void {
  const ref = expectBatchedEqual(d, randomStimulus(d, 2000, 5), [{ engine: 'wasm' }]);
  // The trace holds many values (a constant index would hide a wrong shift or address).
  expect(new Set(ref.map((row) => row.join())).size).toBeGreaterThanOrEqual(minDistinct);
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
      const xs = found(d);
      expect(xs).toHaveLength(2);
      for (const x of xs)
        expect(x).toMatchObject({ from: 'word', base: c.base, stride: c.w, width: c.w, idxBits: Math.log2(c.n) });
      expectLoopEqualsInterpreter(d, 2 ** c.w);
    });

  it('fields out of order, a word over 32 bits, two fields: not taken (or only the part in order), and still right', () => {
    const swapped = design({ width: 32, base: 0, w: 4, n: 8, selBits: 3, order: [1, 0, 2, 3, 5, 4, 6, 7] });
    expect(found(swapped)).toHaveLength(0);
    expectLoopEqualsInterpreter(swapped, 2 ** 4);
    // Halves swapped at the second level: only the tree of fields 4..7 (bits 16..31) is taken.
    const halves = design({ width: 32, base: 0, w: 4, n: 8, selBits: 3, order: [2, 3, 0, 1, 4, 5, 6, 7] });
    const xs = found(halves);
    expect(xs).toHaveLength(2);
    for (const x of xs) expect(x).toMatchObject({ from: 'word', base: 16, stride: 4, idxBits: 2 });
    expectLoopEqualsInterpreter(halves, 2 ** 4);
    const wide = design({ width: 40, base: 0, w: 5, n: 8, selBits: 3 });
    expect(found(wide)).toHaveLength(0);
    expectLoopEqualsInterpreter(wide, 2 ** 5);
    const two = design({ width: 8, base: 0, w: 4, n: 2, selBits: 1 });
    expect(found(two)).toHaveLength(0);
  });

  for (const [n, width, adjacent] of [
    [4, 5, true],
    [4, 5, false],
    [8, 32, false],
    [16, 70, true],
    [16, 70, false],
  ] as const)
    it(`a bank of ${n} registers of ${width} bits, ${adjacent ? 'adjacent' : 'spread'} in V: one load, equal to the tree`, () => {
      const d = bank(n, width, adjacent);
      const xs = found(d);
      expect(xs).toHaveLength(2);
      for (const x of xs) expect(x).toMatchObject({ from: 'state', width, idxBits: Math.log2(n) });
      const words = Math.ceil(width / 32);
      if (adjacent) expect(xs[0]!.stride).toBe(words);
      else expect(xs[0]!.stride).toBeGreaterThan(words);
      expectLoopEqualsInterpreter(d, Math.min(2 ** width, 200) / 2);
    });
});

describe('wasm loop: select conditions and far reads of state', () => {
  it('a select on bit 0, 31 or 40 of another net (tested in place) picks as the interpreter does', () => {
    const m = new ModuleBuilder('bit_selects');
    const a = m.input('a', 32);
    const b = m.input('b', 64);
    const x = m.input('x', 7);
    const y = m.input('y', 7);
    m.output('s0', m.mux(a.bit(0), x, y));
    m.output('s31', m.mux(a.bit(31), x, y));
    m.output('s40', m.mux(b.bit(40), x, y));
    const r = m.reg('r', 7, { en: b.bit(63) });
    r.next(x);
    m.output('r', r);
    expectLoopEqualsInterpreter(m.build(), 64);
  });

  it('a register read at the start of the cycle and again 300 cells later', () => {
    const m = new ModuleBuilder('far_reads');
    const x = m.input('x', 32);
    const r = m.reg('r', 32);
    const q = m.reg('q', 32);
    r.next(r.add(x));
    q.next(q.xor(x));
    // The first reads, then a chain of 300 cells, then the second reads (> RELOAD_DISTANCE).
    m.output('early', r.xor(q));
    let c = x;
    for (let i = 0; i < 300; i++) c = c.add(m.const(2 * i + 1, 32)).xor(m.const(i * 7919, 32));
    m.output('late', c.xor(r).add(q));
    expectLoopEqualsInterpreter(m.build(), 1000);
  });
});

/**
 * A bank of `n` entries of `width` bits written by `writers` one-hot decoders (`valid ? 1 << slot
 * : 0`, or `1 << slot` when `always`), the first writer winning a collision, as the former
 * `reorderQueue` in src/lanes/rtl.ts built it; read through a mux tree by `rd_idx` and, with `direct`, entry 1
 * straight to an output; with `capture`, entry 3 into a register with a late enable. Variants
 * that must not be taken: `reset` (entries with a reset), `wideSlot` (a slot one bit wider than
 * the bank), `mixed` (entry 2's chain in another order), `selfRead` (writer 0's data is entry 0).
 */
function writeBank(o: {
  n: number;
  width: number;
  writers: number;
  always?: boolean;
  direct?: boolean;
  reset?: boolean;
  wideSlot?: boolean;
  mixed?: boolean;
  selfRead?: boolean;
  capture?: boolean;
  reader?: 'muxBit' | 'enBit' | 'wordTree' | 'index' | 'add';
  validFromEntry?: boolean;
}) {
  const m = new ModuleBuilder(`wbank_${o.n}_${o.width}_${o.writers}`);
  const bits = Math.log2(o.n) + (o.wideSlot ? 1 : 0);
  // With `validFromEntry`, writer 1's valid is bit 0 of entry 0 (a wire assigned below).
  const validWire = o.validFromEntry ? m.wire('v1_from_e0', 1) : null;
  const ws = Array.from({ length: o.writers }, (_, s) => ({
    valid: s === 1 && validWire ? validWire : m.input(`v${s}`, 1),
    slot: m.input(`slot${s}`, bits),
    data: m.input(`data${s}`, o.width),
  }));
  const hit = ws.map((w) =>
    o.always ? m.const(1, o.n).shl(w.slot) : m.mux(w.valid, m.const(1, o.n).shl(w.slot), m.const(0, o.n)),
  );
  const en = hit.reduce((a, b) => a.or(b));
  const regs = Array.from({ length: o.n }, (_, j) =>
    m.reg(`e${j}`, o.width, { reset: o.reset ? 0 : null, en: en.bit(j) }),
  );
  const data = ws.map((w, s) => (o.selfRead && s === 0 ? regs[0]! : w.data));
  if (validWire) m.assignWire(validWire, regs[0]!.bit(0));
  regs.forEach((r, j) => {
    const order = o.mixed && j === 2 ? [...ws.keys()].reverse() : [...ws.keys()];
    let d = data[order[order.length - 1]!]!;
    for (let k = order.length - 2; k >= 0; k--) d = m.mux(hit[order[k]!]!.bit(j), data[order[k]!]!, d);
    r.next(d);
  });
  const rdIdx = m.input('rd_idx', Math.log2(o.n));
  const tree = muxTree(m, regs, rdIdx, { sliceOnce: true });
  m.output('tree', tree);
  if (o.direct) m.output('e1', regs[1]!);
  // Plain readers of entries, made after the tree (the writers, inputs, are ready at once).
  const x = m.input('x', o.width);
  if (o.reader === 'muxBit') m.output('rd', m.mux(regs[2]!.bit(0), x, ws[0]!.data));
  if (o.reader === 'enBit') {
    const q = m.reg('q', o.width, { en: regs[3]!.bit(1) });
    q.next(x);
    m.output('rd', q);
  }
  if (o.reader === 'wordTree')
    m.output(
      'rd',
      muxTree(
        m,
        Array.from({ length: 8 }, (_, k) => regs[5]!.bit(k)),
        rdIdx.slice(2, 0),
      ),
    );
  if (o.reader === 'index') {
    const others = Array.from({ length: 4 }, (_, k) => m.reg(`o${k}`, 8));
    others.forEach((r, k) => r.next(x.slice(7, 0).add(k)));
    m.output('rd', muxTree(m, others, regs[6]!.slice(1, 0)));
  }
  if (o.reader === 'add') m.output('rd', regs[1]!.add(x));
  if (o.capture) {
    // A register taking entry 3, its enable computed after the tree (so its edge comes late).
    const q = m.reg('q', o.width, { en: tree.bit(0).xor(ws[0]!.valid) });
    q.next(regs[3]!);
    m.output('q', q);
  }
  return m.build();
}

const banksOf = (d: Design) => indexedWrites(d, layoutOf(d), planLifts(d));

describe('wasm loop: a bank written at decoded indices is one store per writer', () => {
  for (const c of [
    { what: '16 entries of 24 bits, 4 writers', n: 16, width: 24, writers: 4 },
    { what: '16 entries of 1 bit, 2 writers', n: 16, width: 1, writers: 2 },
    { what: '4 entries of 40 bits (two words), 3 writers', n: 4, width: 40, writers: 3 },
    { what: '8 entries of 8 bits, one writer without a valid', n: 8, width: 8, writers: 1, always: true },
    { what: '32 entries of 32 bits, 2 writers, entry 1 also an output', n: 32, width: 32, writers: 2, direct: true },
    { what: '8 entries of 16 bits, 2 writers, entry 3 into a register', n: 8, width: 16, writers: 2, capture: true },
  ])
    it(`${c.what}: taken, writers in priority order, equal to the entries' logic`, () => {
      const d = writeBank(c);
      const banks = banksOf(d);
      expect(banks).toHaveLength(1);
      const b = banks[0]!;
      expect(b.regs).toHaveLength(c.n);
      expect(b.width).toBe(c.width);
      // Stored lowest priority first: the last writer of the chain first, writer 0 last.
      const name = (n: number) => d.nets[n]!.name;
      expect(b.writers.map((w) => name(w.data))).toEqual([...Array(c.writers).keys()].reverse().map((s) => `data${s}`));
      for (const w of b.writers) expect(w.valid === null).toBe(c.always === true);
      // Few slot bits, so writers collide often.
      expectLoopEqualsInterpreter(d, Math.min(100, 2 ** c.width));
    });

  for (const [what, o] of [
    ['entries with a reset', { reset: true }],
    ['a slot wider than the bank', { wideSlot: true }],
    ["one entry's chain in another order", { mixed: true }],
    ["a writer's data an entry of the bank", { selfRead: true }],
    ["a writer's valid a bit of an entry (tested in place)", { validFromEntry: true }],
  ] as const)
    it(`${what}: not taken, and still right`, () => {
      const d = writeBank({ n: 8, width: 12, writers: 3, ...o });
      expect(banksOf(d)).toHaveLength(0);
      expectLoopEqualsInterpreter(d, 100);
    });

  for (const reader of ['muxBit', 'enBit', 'wordTree', 'index', 'add'] as const)
    it(`an entry read by a plain cell (${reader}) after the writers are ready: the stores wait for it`, () => {
      const d = writeBank({ n: 8, width: 12, writers: 3, reader });
      expect(banksOf(d)).toHaveLength(1);
      expectLoopEqualsInterpreter(d, 100);
    });

  it('after reset() the bank holds its power-up values again (the stores keep both copies of V equal)', () => {
    const d = writeBank({ n: 16, width: 24, writers: 4 });
    const before = randomStimulus(d, 700, 3);
    const after = randomStimulus(d, 700, 4);
    const ref = runTrace(new Interpreter(d), after);
    const c = new CompiledSim(d, { engine: 'wasm' });
    c.runBatch(packRows(d, d.inputs, before), before.length);
    c.reset();
    const out = new Uint32Array(after.length * c.layout.outputWords);
    c.runBatch(packRows(d, d.inputs, after), after.length, out);
    const cmp = compareTraces(d, ['wasm', 'interp'], unpackRows(d, d.outputs, out, after.length), ref);
    expect(cmp.count, formatComparison(cmp, d)).toBe(0);
  });
});
