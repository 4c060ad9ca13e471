/**
 * The writeBitColumn stage (src/stages/bitColumn.ts) in isolation, as test/stages/rmw.test.ts
 * checks testAndSetColumn: one column driven as the GBF drives it — an op presents its word
 * address and bit in R, its value (0 or 1) in R+2, its insert's write enable registered at R+1
 * and R+2; a clear requested in cycle q is issued at q+1 and written at q+2 — against sequential
 * semantics under read-during-write poisoning: the cell each op reads is the one every earlier
 * op and clear left, back-to-back ops on one word included.
 */
import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../../src/dsl/module.js';
import { writeBitColumn } from '../../../src/stages/bitColumn.js';
import { Rng } from '../../../src/util/rng.js';
import { CompiledSim } from '../../../sim/compiled.js';

const W = 4;
const DEPTH = 4;

function column(forwarding: boolean) {
  const m = new ModuleBuilder('col');
  const valid = m.input('valid', 1);
  const ins = m.input('ins', 1);
  const value = m.input('value', 1);
  const addr = m.input('addr', Math.log2(DEPTH));
  const bit = m.input('bit_index', Math.log2(W));
  const clrReq = m.input('clr_req', 1);
  const clrAddrIn = m.input('clr_addr_in', Math.log2(DEPTH));
  const insNext = m.pipe(valid.and(ins), 1, 'ins_next');
  const writing = m.pipe(insNext, 1, 'ins_write');
  const issue = m.pipe(clrReq, 1, 'clr_issue');
  const write = m.pipe(issue, 1, 'clr_write');
  const clrAddr = m.pipe(clrAddrIn, 2, 'clr_addr', { reset: null });
  const writeEn = m.pipe(insNext.or(issue), 1, 'write_en');
  const col = writeBitColumn(m, {
    width: W,
    depth: DEPTH,
    addr,
    bit,
    read: valid,
    value: m.pipe(value, 2, 'value_q', { reset: null }),
    writing,
    writeEn,
    clear: { issue, write, addr: clrAddr },
    forwarding,
    cellName: 'cell',
  });
  m.output('cell', col.cell);
  return m.build();
}

interface Op {
  valid: boolean;
  ins: boolean;
  value: number;
  addr: number;
  bit: number;
  clr: boolean;
  clrAddr: number;
}

function workload(n: number, seed: number): Op[] {
  const rng = new Rng(seed);
  const ops: Op[] = [];
  const idle = (): Op => ({ valid: false, ins: false, value: 0, addr: 0, bit: 0, clr: false, clrAddr: 0 });
  while (ops.length < n) {
    if (rng.float() < 0.02) {
      // A clear burst: no op in flight while a word is zeroed (the generator's contract).
      for (let i = 0; i < 3; i++) ops.push(idle());
      for (let i = 0; i < 1 + Number(rng.bits(2)); i++)
        ops.push({ ...idle(), clr: true, clrAddr: Number(rng.bits(2)) });
      for (let i = 0; i < 3; i++) ops.push(idle());
      continue;
    }
    ops.push({
      valid: rng.float() < 0.9,
      ins: rng.float() < 0.6,
      value: Number(rng.bits(1)),
      addr: Number(rng.bits(2)),
      bit: Number(rng.bits(2)),
      clr: false,
      clrAddr: 0,
    });
  }
  return ops;
}

function run(forwarding: boolean, seed: number): { mismatches: number; checked: number; collisions: number } {
  const sim = new CompiledSim(column(forwarding), { poisonCollisions: true });
  const words = new Array<number>(DEPTH).fill(0);
  const want = new Map<number, number>();
  let mismatches = 0;
  let checked = 0;
  const ops = workload(3000, seed);
  for (let t = 0; t < ops.length + 4; t++) {
    const op = ops[t];
    if (want.has(t)) {
      checked++;
      if (Number(sim.peek('cell')) !== want.get(t)) mismatches++;
    }
    if (op) {
      sim.poke('valid', op.valid ? 1 : 0);
      sim.poke('ins', op.ins ? 1 : 0);
      sim.poke('value', op.value);
      sim.poke('addr', op.addr);
      sim.poke('bit_index', op.bit);
      sim.poke('clr_req', op.clr ? 1 : 0);
      sim.poke('clr_addr_in', op.clrAddr);
      if (op.valid) {
        want.set(t + 3, (words[op.addr]! >> op.bit) & 1); // the cell before the op's own insert
        if (op.ins) words[op.addr] = (words[op.addr]! & ~(1 << op.bit)) | (op.value << op.bit);
      }
      if (op.clr) words[op.clrAddr] = 0;
    } else {
      sim.poke('valid', 0);
      sim.poke('clr_req', 0);
    }
    sim.step();
  }
  return { mismatches, checked, collisions: sim.stats[0]! };
}

describe('writeBitColumn (a GBF bank: read a cell, write 0 or 1, with write forwarding)', () => {
  it('with forwarding: back-to-back ops on one word get the sequential answers, clears included', () => {
    for (const seed of [1, 2, 3]) {
      const r = run(true, seed);
      expect(r.checked).toBeGreaterThan(2000);
      expect(r.collisions).toBeGreaterThan(100);
      expect(r.mismatches).toBe(0);
    }
  });

  it('without forwarding the same workload gets wrong answers (the test can fail)', () => {
    expect(run(false, 1).mismatches).toBeGreaterThan(50);
  });
});
