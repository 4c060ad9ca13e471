/**
 * The bitwise pipeline in the compiled simulator (read-during-write collisions poisoned) against
 * the reference model: every response and every block RAM word, hazards on purpose (tiny key
 * universes: back-to-back ops on one key and on keys sharing words), each forwarding path shown
 * necessary, one op per cycle, saturation, clear right behind inserts, reset, the edge configs,
 * and the manual's false negative reproduced on the RTL.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig, resolveConfig } from '../../../src/config/resolve.js';
import { BitwiseModel } from '../../../src/families/bitwise/model.js';
import { BITWISE_OP } from '../../../src/families/bitwise/params.js';
import { buildBitwise } from '../../../src/families/bitwise/rtl.js';
import type { BitwiseDerived } from '../../../src/families/bitwise/types.js';
import { FORWARD_PATHS } from '../../../src/stages/laneRmw.js';
import { CLEAR_DELAY } from '../../../src/stages/clear.js';
import { CompiledSim } from '../../../sim/compiled.js';
import { drive } from '../../../src/verify/stream.js';
import { keyOfIndex, listWorkload, uniformWorkload } from '../../../src/model/workloads.js';
import type { Filter } from '../../../src/families/filter.js';

// H3 alone (no key mix): the tests pick keys that share words on purpose and ask the model about them.
const filterOf = (levels: unknown, extra: Record<string, unknown> = {}): Filter =>
  resolveConfig({ name: 't', filter: 'bitwise', levels, keyBits: 33, seed: 11, keyMix: 'none', ...extra }, 'test');

const SMALL = [
  { cells: 64, width: 2, k: 2 },
  { cells: 32, width: 2, k: 2 },
];

describe('bitwise pipeline ≡ model', () => {
  it('bitwise_l3_w448 on 8 keys (every op a hazard), back-pressure 0.3: responses and memories equal, collisions poisoned', () => {
    const f = loadConfig('bitwise_l3_w448');
    const r = drive(f, { ops: 6000, seed: 2, backpressure: 0.3, idle: 0.05, workload: uniformWorkload(64, 8) });
    expect(r.finished, r.stopReason ?? '').toBe(true);
    expect(r.mismatches).toEqual([]);
    expect(r.model.compareMemories((n, a) => r.sim.readMemory(n, a)).mismatches).toEqual([]);
    expect(r.sim.stats[0]).toBeGreaterThan(100); // read-during-write collisions happened (and read garbage)
  });

  it('without forwarding the same stream gives wrong counts (the verification is not vacuous)', () => {
    const f = filterOf(SMALL);
    const opts = { ops: 3000, seed: 4, workload: uniformWorkload(33, 6) };
    expect(drive(f, opts).mismatches).toEqual([]);
    const bad = drive(f, { ...opts, design: buildBitwise(f.config as BitwiseDerived, { forwarding: false }) });
    expect(bad.mismatchCount).toBeGreaterThan(0);
  });

  for (const path of FORWARD_PATHS)
    it(`dropping only ${path} is caught too`, () => {
      const f = filterOf(SMALL);
      // One request every cycle, five keys: every distance between two ops on one word, and on
      // one counter, occurs; the answers or the words left in the block RAMs go wrong.
      const opts = { ops: 3000, seed: 5, workload: uniformWorkload(33, 5) };
      const good = drive(f, opts);
      expect(good.mismatches).toEqual([]);
      expect(good.model.compareMemories((n, a) => good.sim.readMemory(n, a)).count).toBe(0);
      const bad = drive(f, { ...opts, design: buildBitwise(f.config as BitwiseDerived, { drop: [path] }) });
      const words = bad.model.compareMemories((n, a) => bad.sim.readMemory(n, a)).count;
      expect(bad.mismatchCount + words).toBeGreaterThan(0);
    });

  it('one op per cycle with out_ready high: no stall, exactly one accept per cycle', () => {
    const f = filterOf(SMALL);
    const ops = 5000;
    const r = drive(f, { ops, seed: 6, workload: uniformWorkload(33, 20) });
    expect(r.mismatches).toEqual([]);
    expect(r.stallCycles).toBe(0);
    expect(r.lastAccept - r.firstAccept + 1).toBe(ops);
  });

  it('back-to-back inserts of one key every cycle count exactly, across carries, up to saturation', () => {
    const f = filterOf(SMALL); // widths (2, 2): counts up to 15
    const key = keyOfIndex(7, 33, 3);
    const r = drive(f, { ops: 40, seed: 1, mix: { insert: 1 }, workload: listWorkload([key]) });
    expect(r.mismatches).toEqual([]);
    const m = r.model as unknown as { model: BitwiseModel };
    expect(m.model.count(key)).toMatchObject({ count: 15n, sat: true });
    expect(m.model.saturatedAdds).toBe(25);
    // The RTL's sat flag: the same stream with test-and-insert, answers compared by the driver.
    const t = drive(f, { ops: 40, seed: 1, mix: { testAndInsert: 1 }, workload: listWorkload([key]) });
    expect(t.mismatches).toEqual([]);
  });

  it('a clear right behind inserts: in_ready low for the sweep, every counter zero after it', () => {
    const f = filterOf(SMALL);
    const c = f.config as BitwiseDerived;
    const sim = new CompiledSim(f.design(), { poisonCollisions: true });
    sim.poke('out_ready', 1);
    const ready = (): boolean => sim.peek('in_ready') === 1n;
    let guard = 0;
    while (!ready() && guard++ < 100) sim.step();
    const send = (op: number, key: bigint): void => {
      sim.poke('in_valid', 1);
      sim.poke('in_op', op);
      sim.poke('in_key', key);
      while (!ready()) sim.step();
      sim.step();
      sim.poke('in_valid', 0);
    };
    for (let i = 0; i < 12; i++) send(BITWISE_OP.insert, keyOfIndex(i % 3, 33, 1));
    send(BITWISE_OP.clear, 0n);
    let low = 0;
    while (!ready()) {
      sim.step();
      low++;
    }
    const depth = Math.max(...c.levels.map((L) => L.depth));
    expect(low).toBeGreaterThanOrEqual(depth + CLEAR_DELAY);
    expect(low).toBeLessThanOrEqual(f.protocol().maxStallCycles);
    c.levels.forEach((L, i) => {
      for (let j = 0; j < L.k; j++)
        for (let a = 0; a < L.depth; a++) expect(sim.readMemory(`l${i}_b${j}_ram`, a)).toBe(0n);
    });
  });

  it('after rst the filter reads empty again', () => {
    const f = filterOf(SMALL);
    const key = keyOfIndex(1, 33, 1);
    const sim = new CompiledSim(f.design());
    sim.poke('out_ready', 1);
    const op = (code: number): bigint => {
      while (sim.peek('in_ready') === 0n) sim.step();
      sim.poke('in_valid', 1);
      sim.poke('in_op', code);
      sim.poke('in_key', key);
      sim.step();
      sim.poke('in_valid', 0);
      while (sim.peek('out_valid') === 0n) sim.step();
      const n = sim.peek('out_count');
      sim.step();
      return n;
    };
    for (let i = 0; i < 5; i++) op(BITWISE_OP.insert);
    expect(op(BITWISE_OP.query)).toBe(5n);
    sim.poke('rst', 1);
    sim.step();
    sim.poke('rst', 0);
    expect(op(BITWISE_OP.query)).toBe(0n);
  });

  const edges: [string, unknown, Record<string, unknown>?][] = [
    ['l = 1, w = 1, k = 1, two counters', [{ cells: 2, width: 1, k: 1 }]],
    ['w = 1 on every level (the manual figure), k = 1', [1, 2, 3, 4].map(() => ({ cells: 64, width: 1, k: 1 }))],
    [
      'the widest counters of an iCE40 word (16 bits)',
      [
        { cells: 64, width: 16, k: 4 },
        { cells: 32, width: 16, k: 2 },
      ],
    ],
    [
      'odd widths and k (3, 5, 7 bits; k = 3, 5, 1)',
      [
        { cells: 96, width: 3, k: 3 },
        { cells: 40, width: 5, k: 5 },
        { cells: 16, width: 7, k: 1 },
      ],
    ],
    [
      '8 levels, k = 16 on one',
      [{ cells: 256, width: 2, k: 16 }, ...Array.from({ length: 7 }, () => ({ cells: 32, width: 2, k: 2 }))],
    ],
    ['one counter per 2-bit word (wordBits 2)', [{ cells: 64, width: 2, k: 2 }], { wordBits: 2 }],
    [
      '32-bit counters on Xilinx (64-bit words)',
      [
        { cells: 64, width: 32, k: 2 },
        { cells: 32, width: 32, k: 2 },
      ],
      { target: 'xilinx' },
    ],
  ];
  for (const [what, levels, extra] of edges)
    it(`edge: ${what}`, () => {
      const f = filterOf(levels, extra);
      for (const u of [3, 60]) {
        const r = drive(f, { ops: 2500, seed: u, backpressure: 0.2, idle: 0.05, workload: uniformWorkload(33, u) });
        expect(r.finished, r.stopReason ?? '').toBe(true);
        expect(r.mismatches).toEqual([]);
        expect(r.model.compareMemories((n, a) => r.sim.readMemory(n, a)).mismatches).toEqual([]);
      }
    });

  it('one level never removes: no false negative for any key added since the last clear (window Infinity)', () => {
    const f = filterOf([{ cells: 256, width: 2, k: 2 }]);
    expect(f.window()).toBe(Infinity);
    expect(filterOf(SMALL).window()).toBeNull();
    const r = drive(f, {
      ops: 6000,
      seed: 8,
      mix: { testAndInsert: 3, query: 1, clear: 0.001 },
      workload: uniformWorkload(33, 300),
      exactWindow: true,
    });
    expect(r.mismatches).toEqual([]);
    expect(r.window!.inWindow).toBeGreaterThan(2000);
    expect(r.window!.falseNegatives).toBe(0);
  });

  it("the manual's removal gives a false negative on the RTL as in the model", () => {
    const f = filterOf([
      { cells: 64, width: 4, k: 4 },
      { cells: 64, width: 4, k: 4 },
    ]);
    const c = f.config as BitwiseDerived;
    const m = new BitwiseModel(c);
    // y, and an x that shares one level-0 counter with it.
    const y = keyOfIndex(0, 33, 5);
    const py = m.positions(y);
    let x = 0n;
    for (let i = 1; ; i++) {
      x = keyOfIndex(i, 33, 5);
      const px = m.positions(x);
      const shared = px.flatMap((lv, li) => lv.filter((v, j) => py[li]![j] === v)).length;
      if (shared === 1 && px[0]!.some((v, j) => py[0]![j] === v)) break;
    }
    const keys = [y, ...Array.from({ length: 16 }, () => x), y];
    const r = drive(f, { ops: keys.length, seed: 1, mix: { testAndInsert: 1 }, workload: listWorkload(keys) });
    expect(r.mismatches).toEqual([]);
    const model = (r.model as unknown as { model: BitwiseModel }).model;
    expect(model.count(x).count).toBe(16n);
    // y was added once before x's carry, once after: it counts 1, not 2, and read 0 in between.
    expect(model.count(y).count).toBe(1n);
  });
});
