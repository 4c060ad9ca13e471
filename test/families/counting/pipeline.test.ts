/**
 * The counting/spectral pipelines in the compiled simulator against the reference model:
 * forwarding is needed (a build without it is caught), saturation and underflow flags at one op
 * per cycle on one key, the edges of the config space, reset and clear, MI's missing remove,
 * zero stalls.
 */
import { describe, expect, it } from 'vitest';
import { deriveCounting } from '../../../src/families/counting/config.js';
import { CountingModel } from '../../../src/families/counting/model.js';
import { latencyOf, OP } from '../../../src/families/counting/params.js';
import { buildCounting } from '../../../src/families/counting/rtl.js';
import type { CountingDerived } from '../../../src/families/counting/types.js';
import { CLEAR_DELAY } from '../../../src/stages/clear.js';
import { CompiledSim } from '../../../sim/compiled.js';
import { keyOfIndex, uniformWorkload } from '../../../src/model/workloads.js';
import { driveConfig, presetConfig } from '../../helpers/families.js';
import { pipelineShape } from '../../helpers/presets.js';

const PRESETS = ['counting_k4_w4', 'spectral_mi_k4_w4', 'spectral_rm_k4_w4', 'counting_k8_w8_ecp5'];

const mixOf = (c: CountingDerived): Record<string, number> => ({
  query: 3,
  insert: 4,
  testAndInsert: 2,
  ...(c.remove ? { remove: 3 } : {}),
  clear: 0.0005,
});

interface Response {
  hit: number;
  count: number;
  overflow: number;
  underflow: number;
}

/** Sends the ops one per cycle (out_ready high) and returns every response, in order. */
function runOps(
  c: CountingDerived,
  ops: { op: number; key: bigint }[],
  sim = new CompiledSim(buildCounting(c)),
): Response[] {
  const out: Response[] = [];
  sim.poke('out_ready', 1);
  sim.poke('in_valid', 0);
  while (sim.peek('in_ready') === 0n) sim.step();
  let i = 0;
  for (let cycle = 0; out.length < ops.length && cycle < ops.length + 4 * c.depth + 200; cycle++) {
    if (i < ops.length) {
      sim.poke('in_valid', 1);
      sim.poke('in_op', ops[i]!.op);
      sim.poke('in_key', ops[i]!.key);
    } else sim.poke('in_valid', 0);
    if (i < ops.length && sim.peek('in_ready') === 1n) i++;
    if (sim.peek('out_valid') === 1n)
      out.push({
        hit: Number(sim.peek('out_hit')),
        count: Number(sim.peek('out_count')),
        overflow: Number(sim.peek('out_overflow')),
        underflow: Number(sim.peek('out_underflow')),
      });
    sim.step();
  }
  return out;
}

function modelAnswers(c: CountingDerived, ops: { op: number; key: bigint }[]): Response[] {
  const m = new CountingModel(c);
  const names = Object.fromEntries(Object.entries(OP).map(([n, v]) => [v, n]));
  return ops.map(({ op, key }) => {
    const r = m.apply(names[op] as 'query', key);
    return { hit: +r.hit, count: r.count, overflow: +r.overflow, underflow: +r.underflow };
  });
}

describe('forwarding is needed', () => {
  for (const name of PRESETS)
    it(`${name}: back-to-back ops on 8 keys equal the model with forwarding, and not without`, () => {
      const c = presetConfig<CountingDerived>(name);
      const o = { ops: 3000, seed: 4, mix: mixOf(c) };
      const good = driveConfig(c, { ...o, workload: uniformWorkload(c.keyBits, 8) });
      expect(good.finished).toBe(true);
      expect(good.mismatches).toEqual([]);
      expect(good.model.compareMemories((n, a) => good.sim.readMemory(n, a)).count).toBe(0);
      const bad = driveConfig(c, {
        ...o,
        workload: uniformWorkload(c.keyBits, 8),
        design: buildCounting(c, { forwarding: false }),
      });
      expect(bad.mismatchCount).toBeGreaterThan(0);
    });
});

describe('saturation and underflow flags, one op per cycle on one key', () => {
  for (const name of ['counting_k4_w4', 'spectral_mi_k4_w4', 'spectral_rm_k4_w4'])
    it(`${name}: 20 back-to-back inserts saturate at 15 and flag overflow; removes at 0 flag underflow`, () => {
      const c = presetConfig<CountingDerived>(name);
      const key = keyOfIndex(5, c.keyBits, 3);
      const ops = [
        ...Array.from({ length: 20 }, () => ({ op: OP.testAndInsert, key })),
        { op: OP.query, key },
        ...(c.remove ? Array.from({ length: 18 }, () => ({ op: OP.remove, key })) : []),
        { op: OP.query, key },
      ];
      const hw = runOps(c, ops);
      expect(hw).toEqual(modelAnswers(c, ops));
      // test-and-insert answers before its own insert: 0, 1, ..., 15, 15, ...
      expect(hw.slice(0, 20).map((r) => r.count)).toEqual([...Array(16).keys(), 15, 15, 15, 15]);
      expect(hw.slice(0, 20).map((r) => r.overflow)).toEqual([...Array(15).fill(0), ...Array(5).fill(1)]);
      expect(hw[20]!.count).toBe(15);
      if (c.remove) {
        const removes = hw.slice(21, 39);
        // 15 removes reach 0 (RM: the primary's); the 16th to 18th find the primary at 0.
        expect(removes.map((r) => r.underflow)).toEqual([...Array(15).fill(0), 1, 1, 1]);
        expect(hw[39]!).toEqual({ hit: 0, count: 0, overflow: 0, underflow: 0 });
      }
    });

  it('MI has no remove op: op 3 is answered with zeros and changes nothing', () => {
    const c = presetConfig<CountingDerived>('spectral_mi_k4_w4');
    const key = keyOfIndex(6, c.keyBits, 3);
    const ops = [
      { op: OP.insert, key },
      { op: OP.insert, key },
      { op: 3, key },
      { op: 3, key },
      { op: OP.query, key },
    ];
    const sim = new CompiledSim(buildCounting(c));
    const hw = runOps(c, ops, sim);
    expect(hw.slice(2)).toEqual([
      { hit: 0, count: 0, overflow: 0, underflow: 0 },
      { hit: 0, count: 0, overflow: 0, underflow: 0 },
      { hit: 1, count: 2, overflow: 0, underflow: 0 },
    ]);
    expect('remove' in presetConfig<CountingDerived>('spectral_mi_k4_w4')).toBe(true); // the field, false
    expect(c.remove).toBe(false);
  });
});

describe('edges of the config space build and equal the model (remove, clear, back-pressure)', () => {
  const edges: [string, Record<string, unknown>][] = [
    ['k = 1', { k: 1 }],
    ['w = 1 (16 counters per word)', { counterBits: 1, cellsPerBank: 64 }],
    ['w = 16, one counter per word (the widest on iCE40)', { counterBits: 16, cellsPerBank: 64 }],
    [
      'w = 32 on a 72-bit Xilinx word (two lanes)',
      { counterBits: 32, wordBits: 72, target: 'xilinx', cellsPerBank: 64 },
    ],
    ['w = 3 (12 of 16 bits used)', { counterBits: 3, cellsPerBank: 64 }],
    ['k = 16', { k: 16, cellsPerBank: 32 }],
    ['MI, k = 1', { filter: 'spectral', algorithm: 'mi', k: 1 }],
    ['MI, w = 1', { filter: 'spectral', algorithm: 'mi', counterBits: 1, cellsPerBank: 64 }],
    ['RM, k = 1', { filter: 'spectral', algorithm: 'rm', k: 1 }],
    [
      'RM, w = 1, a small secondary',
      { filter: 'spectral', algorithm: 'rm', counterBits: 1, cellsPerBank: 64, secondaryCellsPerBank: 32 },
    ],
    ['RM, w = 16', { filter: 'spectral', algorithm: 'rm', counterBits: 16, cellsPerBank: 16 }],
    ['a two-word bank, 8-bit keys', { cellsPerBank: 8, keyBits: 8 }],
  ];
  for (const [what, patch] of edges)
    it(what, () => {
      const c = deriveCounting({
        name: 'edge_cfg',
        filter: 'counting',
        k: 3,
        counterBits: 4,
        cellsPerBank: 128,
        keyBits: 40,
        seed: 11,
        ...patch,
      });
      for (const universe of [6, 300]) {
        const r = driveConfig(c, {
          ops: 2500,
          seed: universe,
          backpressure: 0.2,
          idle: 0.05,
          mix: mixOf(c),
          workload: uniformWorkload(c.keyBits, universe),
        });
        expect(r.finished, r.stopReason ?? '').toBe(true);
        expect(r.mismatches).toEqual([]);
        expect(r.model.compareMemories((n, a) => r.sim.readMemory(n, a)).mismatches).toEqual([]);
      }
    });
});

describe('reset, clear, one op per cycle', () => {
  it('power-up and rst sweep every word with in_ready low; afterwards every count is 0', () => {
    const c = presetConfig<CountingDerived>('counting_k4_w4');
    const sim = new CompiledSim(buildCounting(c));
    const untilReady = (): number => {
      let n = 0;
      while (sim.peek('in_ready') === 0n) {
        sim.step();
        n++;
      }
      return n;
    };
    expect(untilReady()).toBe(c.depth + CLEAR_DELAY + 1);
    const keys = [1, 2, 3].map((i) => keyOfIndex(i, c.keyBits, 4));
    const ins = runOps(
      c,
      keys.map((key) => ({ op: OP.insert, key })),
      sim,
    );
    expect(ins).toHaveLength(3);
    expect(
      runOps(
        c,
        keys.map((key) => ({ op: OP.query, key })),
        sim,
      ).map((r) => r.count),
    ).toEqual([1, 1, 1]);
    sim.poke('rst', 1);
    sim.step();
    sim.poke('rst', 0);
    expect(untilReady()).toBe(c.depth + CLEAR_DELAY + 1);
    expect(
      runOps(
        c,
        keys.map((key) => ({ op: OP.query, key })),
        sim,
      ).map((r) => r.count),
    ).toEqual([0, 0, 0]);
    for (let a = 0; a < c.depth; a++) expect(sim.readMemory('bank0_ram', a)).toBe(0n);
  });

  for (const name of ['counting_k4_w4', 'spectral_rm_k4_w4'])
    it(`${name}: a clear right behind inserts zeroes them (the sweep waits for the writes ahead)`, () => {
      const c = presetConfig<CountingDerived>(name);
      const key = keyOfIndex(9, c.keyBits, 4);
      const ops = [
        ...Array.from({ length: 6 }, () => ({ op: OP.insert, key })),
        { op: OP.clear, key: 0n },
        { op: OP.query, key },
        { op: OP.insert, key },
        { op: OP.query, key },
      ];
      const hw = runOps(c, ops);
      expect(hw).toEqual(modelAnswers(c, ops));
      expect(hw.slice(7).map((r) => r.count)).toEqual([0, 0, 1]);
    });

  for (const name of PRESETS)
    it(`${name}: one op accepted every cycle, 0 stall cycles, latency ${latencyOf(presetConfig<CountingDerived>(name).algorithm)}`, () => {
      const c = presetConfig<CountingDerived>(name);
      const { clear: _clear, ...mix } = mixOf(c);
      void _clear;
      const r = driveConfig(c, { ops: 20_000, seed: 2, mix });
      expect(r.finished).toBe(true);
      expect(r.stallCycles).toBe(0);
      expect(r.lastAccept - r.firstAccept + 1).toBe(20_000);
      expect(r.mismatches).toEqual([]);
    });
});

describe('test cover', () => {
  it('spectral RM (its remove) is a pipeline shape of its own in the test cover (test/helpers/presets.ts)', () => {
    expect(pipelineShape('spectral_rm_k4_w4')).not.toBe(pipelineShape('spectral_mi_k4_w4'));
  });
});
