/**
 * The laneRmw stage (src/stages/laneRmw.ts) on its own: a bank of 4 words of 4 three-bit cells,
 * each op adding its operand to one cell (an add past 7 is void: the stage's `skip`) at one op per
 * cycle, clears in between, under
 * read-during-write poisoning, against a plain array; with any correction dropped it goes wrong.
 */
import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../../src/dsl/module.js';
import { FORWARD_PATHS, laneRmw, type ForwardPath } from '../../../src/stages/laneRmw.js';
import { Rng } from '../../../src/util/rng.js';
import { CompiledSim } from '../../../sim/compiled.js';

const DEPTH = 4;
const LANES = 4;
const BITS = 3;

/** Inputs in cycle t; the op reads in R = t+1, updates in R+3; `value` (its cell before the op) is out in t+4. */
function bank(forwarding: boolean, drop: ForwardPath[] = []) {
  const m = new ModuleBuilder('bank');
  const valid = m.input('valid', 1);
  const ins = m.input('ins', 1);
  const addr = m.input('addr', 2);
  const lane = m.input('lane', 2);
  const add = m.input('add', BITS);
  const clr = m.input('clr', 1);
  const clrAddr = m.input('clr_addr', 2);
  const read = m.pipe(valid, 1, 'read');
  const writing = m.pipe(valid.and(ins), 4, 'writing');
  const op3 = m.pipe(add, 4, 'add3', { reset: null });
  const r = laneRmw(m, {
    cellBits: BITS,
    lanes: LANES,
    depth: DEPTH,
    addr: m.pipe(addr, 1, 'a0', { reset: null }),
    lane: m.pipe(lane, 1, 'l0', { reset: null }),
    read,
    writing,
    clear: { write: m.pipe(clr, 1, 'clr_q'), addr: m.pipe(clrAddr, 1, 'clr_addr_q', { reset: null }) },
    forwarding,
    drop,
    flags: (v) => [v.eq(7)],
  });
  // An add that would pass 7 is void (nothing changes): the stage's late `skip`.
  const sum = r.value.zext(BITS + 1).add(op3.zext(BITS + 1));
  r.commit(sum.trunc(BITS), sum.bit(BITS));
  m.output('value', r.value);
  m.output('value_is7', m.mux(r.same, r.prev.eq(7), r.mineFlags[0]!));
  return m.build();
}

interface Op {
  valid: boolean;
  ins: boolean;
  addr: number;
  lane: number;
  add: number;
  clr: boolean;
}

function workload(n: number, seed: number): Op[] {
  const rng = new Rng(seed);
  const idle = (): Op => ({ valid: false, ins: false, addr: 0, lane: 0, add: 0, clr: false });
  const ops: Op[] = [];
  while (ops.length < n) {
    if (rng.float() < 0.02) {
      // A clear of one word, with no op in flight around it (the stage's contract).
      for (let i = 0; i < 6; i++) ops.push(idle());
      ops.push({ ...idle(), addr: Number(rng.bits(2)), clr: true });
      for (let i = 0; i < 6; i++) ops.push(idle());
      continue;
    }
    ops.push({
      valid: rng.float() < 0.9,
      ins: rng.float() < 0.7,
      addr: Number(rng.bits(2)),
      lane: Number(rng.bits(2)),
      add: 1 + Number(rng.bits(2)),
      clr: false,
    });
  }
  return ops;
}

function run(forwarding: boolean, seed: number, drop: ForwardPath[] = []) {
  const sim = new CompiledSim(bank(forwarding, drop), { poisonCollisions: true });
  const cells = new Array<number>(DEPTH * LANES).fill(0);
  const want = new Map<number, number>();
  const ops = workload(4000, seed);
  let checked = 0;
  let mismatches = 0;
  for (let t = 0; t < ops.length + 6; t++) {
    if (want.has(t)) {
      checked++;
      const v = want.get(t)!;
      if (Number(sim.peek('value')) !== v || Number(sim.peek('value_is7')) !== Number(v === 7)) mismatches++;
    }
    const op = ops[t];
    sim.poke('valid', op?.valid ? 1 : 0);
    if (op) {
      sim.poke('ins', op.ins ? 1 : 0);
      sim.poke('addr', op.addr);
      sim.poke('lane', op.lane);
      sim.poke('add', op.add);
      sim.poke('clr', op.clr ? 1 : 0);
      sim.poke('clr_addr', op.addr);
      const i = op.addr * LANES + op.lane;
      if (op.valid) {
        want.set(t + 4, cells[i]!);
        if (op.ins && cells[i]! + op.add <= 7) cells[i] = cells[i]! + op.add;
      }
      if (op.clr) for (let l = 0; l < LANES; l++) cells[op.addr * LANES + l] = 0;
    } else sim.poke('clr', 0);
    sim.step();
  }
  let words = 0;
  for (let a = 0; a < DEPTH; a++) {
    let w = 0n;
    for (let l = LANES - 1; l >= 0; l--) w = (w << BigInt(BITS)) | BigInt(cells[a * LANES + l]!);
    if (sim.readMemory('ram', a) !== w) words++;
  }
  return { checked, mismatches, words, collisions: sim.stats[0]! };
}

describe('laneRmw (packed cells, read-modify-write with forwarding)', () => {
  it('with forwarding: every op sees its cell as every earlier op left it; the words too; clears included', () => {
    for (const seed of [1, 2, 3]) {
      const r = run(true, seed);
      expect(r.checked).toBeGreaterThan(2500);
      expect(r.collisions).toBeGreaterThan(100); // the hazards happened (and read garbage)
      expect(r.mismatches).toBe(0);
      expect(r.words).toBe(0);
    }
  });

  it('without forwarding, or without any one correction, answers or words go wrong', () => {
    expect(run(false, 1).mismatches).toBeGreaterThan(0);
    for (const p of FORWARD_PATHS) {
      const r = run(true, 1, [p]);
      expect(r.mismatches + r.words, p).toBeGreaterThan(0);
    }
  });
});
