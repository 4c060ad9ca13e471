import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { counterBank, COUNTER_MODIFY, saturatingAdd, saturatingStep } from '../../src/stages/counters.js';
import { Rng } from '../../src/util/rng.js';
import { CompiledSim } from '../../sim/compiled.js';

const W = 3; // counter bits: saturation at 7 is reached often
const LANES = 4;
const DEPTH = 4; // 16 counters: same-word and same-counter hazards every few cycles

/**
 * One bank driven as the counting pipelines drive it: an op's inputs are registered (R), its
 * counter is `value` in R+3, where the update is a saturating +1 / −1, or + `amount` (the RM
 * secondary's addition); the sweep zeroes a word a cycle after `sweep_active`.
 */
function bank(forwarding: boolean) {
  const m = new ModuleBuilder('bank');
  const reg = (x: ReturnType<typeof m.input>, name: string, reset = false) =>
    m.pipe(x, 1, name, reset ? {} : { reset: null });
  const valid = reg(m.input('valid', 1), 'valid_r', true);
  const op = reg(m.input('op', 2), 'op_r'); // 0 read, 1 inc, 2 dec, 3 add
  const amount = m.input('amount', W);
  const addr = reg(m.input('addr', Math.log2(DEPTH)), 'addr_r');
  const lane = reg(m.input('lane', Math.log2(LANES)), 'lane_r');
  const sweepActive = m.input('sweep_active', 1);
  const sweepAddr = m.input('sweep_addr', Math.log2(DEPTH));
  const modify = valid.and(op.ne(0));
  const b = counterBank(m, {
    counterBits: W,
    lanes: LANES,
    depth: DEPTH,
    addr,
    lane,
    read: valid,
    modify,
    sweep: { active: sweepActive, addr: sweepAddr },
    forwarding,
  });
  const opM = m.pipe(op, COUNTER_MODIFY, 'op_m', { reset: null });
  const amountM = m.pipe(reg(amount, 'amount_r'), COUNTER_MODIFY, 'amount_m', { reset: null });
  const step = saturatingStep(m, b.value, opM.eq(1), opM.eq(2));
  const add = saturatingAdd(m, b.value, amountM);
  b.update(m.mux(opM.eq(3), add.sum, step.next));
  m.output('value', b.value);
  m.output('flags', m.cat(m.mux(opM.eq(3), add.overflow, step.overflow), step.underflow));
  return m.build();
}

interface Op {
  valid: boolean;
  op: number;
  amount: number;
  addr: number;
  lane: number;
  sweep: boolean;
  sweepAddr: number;
}

/** Random ops on 16 counters, with sweep bursts between quiet gaps (no op in flight while sweeping). */
function workload(n: number, seed: number): Op[] {
  const rng = new Rng(seed);
  const idle = (): Op => ({ valid: false, op: 0, amount: 0, addr: 0, lane: 0, sweep: false, sweepAddr: 0 });
  const ops: Op[] = [];
  while (ops.length < n) {
    if (rng.float() < 0.01) {
      for (let i = 0; i < 6; i++) ops.push(idle());
      for (let i = 0; i < 1 + Number(rng.bits(2)); i++)
        ops.push({ ...idle(), sweep: true, sweepAddr: Number(rng.bits(2)) });
      for (let i = 0; i < 3; i++) ops.push(idle());
      continue;
    }
    const r = rng.float();
    ops.push({
      valid: rng.float() < 0.9,
      // Mostly increments, so counters reach saturation; decrements reach 0.
      op: r < 0.2 ? 0 : r < 0.65 ? 1 : r < 0.9 ? 2 : 3,
      amount: Number(rng.bits(W)),
      addr: Number(rng.bits(2)),
      lane: Number(rng.bits(2)),
      sweep: false,
      sweepAddr: 0,
    });
  }
  return ops;
}

/** Runs the bank under read-during-write poisoning against a plain array of counters. */
function run(forwarding: boolean, seed: number) {
  const sim = new CompiledSim(bank(forwarding), { poisonCollisions: true });
  const max = 2 ** W - 1;
  const counters = new Array<number>(DEPTH * LANES).fill(0);
  const want = new Map<number, { value: number; flags: number }>();
  let mismatches = 0;
  let checked = 0;
  let saturated = 0;
  const ops = workload(4000, seed);
  for (let t = 0; t < ops.length + 8; t++) {
    const o = ops[t];
    const exp = want.get(t);
    if (exp) {
      checked++;
      if (Number(sim.peek('value')) !== exp.value || Number(sim.peek('flags')) !== exp.flags) mismatches++;
    }
    sim.poke('valid', o?.valid ? 1 : 0);
    sim.poke('op', o?.op ?? 0);
    sim.poke('amount', o?.amount ?? 0);
    sim.poke('addr', o?.addr ?? 0);
    sim.poke('lane', o?.lane ?? 0);
    // The sweep input is seen one cycle after an op's input (the op's are registered once more).
    const s = ops[t - 1];
    sim.poke('sweep_active', s?.sweep ? 1 : 0);
    sim.poke('sweep_addr', s?.sweepAddr ?? 0);
    if (s?.sweep) for (let j = 0; j < LANES; j++) counters[s.sweepAddr * LANES + j] = 0;
    if (o?.valid) {
      const i = o.addr * LANES + o.lane;
      const v = counters[i]!;
      let next = v;
      let ovf = 0;
      let udf = 0;
      if (o.op === 1) [next, ovf] = v === max ? [v, 1] : [v + 1, 0];
      if (o.op === 2) [next, udf] = v === 0 ? [v, 1] : [v - 1, 0];
      if (o.op === 3) [next, ovf] = v + o.amount > max ? [max, 1] : [v + o.amount, 0];
      if (ovf) saturated++;
      counters[i] = next;
      // Inputs are registered (R = t + 1), the value is valid in R + COUNTER_MODIFY.
      want.set(t + 1 + COUNTER_MODIFY, { value: v, flags: (ovf << 1) | udf });
    }
    sim.step();
  }
  let memory = 0;
  for (let a = 0; a < DEPTH; a++) {
    let word = 0n;
    for (let j = LANES - 1; j >= 0; j--) word = (word << BigInt(W)) | BigInt(counters[a * LANES + j]!);
    if (sim.readMemory('ram', a) !== word) memory++;
  }
  return { mismatches, checked, memory, saturated, collisions: sim.stats[0]! };
}

describe('counterBank (packed counters, read-modify-write with forwarding)', () => {
  it('with forwarding: every op sees its counter as left by every earlier op; the memory ends equal', () => {
    for (const seed of [1, 2, 3]) {
      const r = run(true, seed);
      expect(r.checked).toBeGreaterThan(3000);
      expect(r.collisions).toBeGreaterThan(100); // the hazards did happen (and returned garbage)
      expect(r.saturated).toBeGreaterThan(50); // saturation was exercised
      expect(r.mismatches).toBe(0);
      expect(r.memory).toBe(0);
    }
  });

  it('without forwarding the same workload gets wrong values (the test can fail)', () => {
    const r = run(false, 1);
    expect(r.mismatches).toBeGreaterThan(100);
  });

  it('saturatingStep and saturatingAdd at the edges (w = 1 and w = 3)', () => {
    for (const w of [1, 3]) {
      const m = new ModuleBuilder('s');
      const v = m.input('v', w);
      const a = m.input('a', w);
      const inc = m.input('inc', 1);
      const dec = m.input('dec', 1);
      const st = saturatingStep(m, v, inc, dec);
      const ad = saturatingAdd(m, v, a);
      m.output('next', st.next);
      m.output('ovf', st.overflow);
      m.output('udf', st.underflow);
      m.output('sum', ad.sum);
      m.output('carry', ad.overflow);
      const sim = new CompiledSim(m.build());
      const max = 2 ** w - 1;
      for (let x = 0; x <= max; x++)
        for (let y = 0; y <= max; y++)
          for (const [i, d] of [
            [0, 0],
            [1, 0],
            [0, 1],
          ]) {
            sim.poke('v', x);
            sim.poke('a', y);
            sim.poke('inc', i!);
            sim.poke('dec', d!);
            const next = i ? Math.min(max, x + 1) : d ? Math.max(0, x - 1) : x;
            expect(Number(sim.peek('next'))).toBe(next);
            expect(Number(sim.peek('ovf'))).toBe(i && x === max ? 1 : 0);
            expect(Number(sim.peek('udf'))).toBe(d && x === 0 ? 1 : 0);
            expect(Number(sim.peek('sum'))).toBe(Math.min(max, x + y));
            expect(Number(sim.peek('carry'))).toBe(x + y > max ? 1 : 0);
          }
    }
  });
});
