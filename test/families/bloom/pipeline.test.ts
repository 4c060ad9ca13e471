/**
 * The set filter pipelines in the compiled simulator (poisoned read-during-write collisions):
 * one op per cycle for the partitioned and blocked filters, exactly one per k cycles for the basic
 * filter, the declared latency for every k, keys whose probes repeat a bit, the clear op and
 * reset, and builds with the forwarding left out caught by the same checks.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/resolve.js';
import { deriveBloom } from '../../../src/families/bloom/config.js';
import { latencyOf, OP, sweepCycles } from '../../../src/families/bloom/params.js';
import { buildBloom } from '../../../src/families/bloom/rtl.js';
import type { BloomDerived } from '../../../src/families/bloom/types.js';
import { CompiledSim } from '../../../sim/compiled.js';
import { uniformWorkload } from '../../../src/model/workloads.js';
import { driveConfig, filterOf, presetConfig } from '../../helpers/families.js';

const preset = (n: string): BloomDerived => presetConfig<BloomDerived>(n);
const PRESETS = ['bloom_basic_k4_16k', 'bloom_partitioned_k4_4k', 'bloom_blocked_b512_4_16k'];

describe('throughput', () => {
  for (const name of PRESETS)
    it(`${name}: a request offered every cycle is accepted every II = ${preset(name).initiationInterval} cycles, the model's answers`, () => {
      const c = preset(name);
      const ops = 5000;
      const r = driveConfig(c, { ops, seed: 9, mix: { query: 1, insert: 2, testAndInsert: 1 } });
      expect(r.finished, r.stopReason ?? '').toBe(true);
      expect(r.mismatches).toEqual([]);
      // The two-entry input skid buffer takes the first requests at once; after that one every II cycles.
      const k = c.initiationInterval;
      expect(r.lastAccept - r.firstAccept).toBe((ops - 1) * k - 2 * (k - 1));
      expect(r.stallCycles).toBe(r.lastAccept - r.firstAccept + 1 - ops);
      // The manifest states the interval measured here.
      expect(loadConfig(name).manifest().initiationInterval).toBe(k);
    });

  it('the basic filter for k = 2..6: II = k and latency 8 + k, measured', () => {
    for (let k = 2; k <= 6; k++) {
      const c = deriveBloom({ name: 'b', filter: 'basic', k, bits: 4096, keyBits: 32, seed: k });
      expect(c.initiationInterval).toBe(k);
      const r = driveConfig(c, { ops: 500, seed: k, mix: { testAndInsert: 1 } });
      expect(r.mismatches).toEqual([]);
      expect(r.lastAccept - r.firstAccept).toBe(499 * k - 2 * (k - 1));
      expect(measuredLatency(c)).toBe(latencyOf(c));
      expect(latencyOf(c)).toBe(8 + k);
    }
    expect(measuredLatency(preset('bloom_partitioned_k4_4k'))).toBe(9);
  });
});

/** Cycles from the accepting edge of one query to out_valid (out_ready high). */
function measuredLatency(c: BloomDerived): number {
  const sim = new CompiledSim(buildBloom(c));
  sim.poke('out_ready', 1);
  while (sim.peek('in_ready') !== 1n) sim.step();
  sim.poke('in_op', OP.query);
  sim.poke('in_valid', 1);
  sim.step();
  sim.poke('in_valid', 0);
  let edges = 1;
  while (sim.peek('out_valid') !== 1n && edges < 200) {
    sim.step();
    edges++;
  }
  return edges;
}

describe('hazards the verification catches', () => {
  for (const name of PRESETS)
    it(`${name}: without write forwarding, back-to-back ops on one word give wrong answers`, () => {
      const c = preset(name);
      const workload = (): ReturnType<typeof uniformWorkload> => uniformWorkload(c.keyBits, 8); // many same-word hazards
      const good = driveConfig(c, { ops: 3000, seed: 4, workload: workload() });
      expect(good.mismatches).toEqual([]);
      const bad = driveConfig(c, {
        ops: 3000,
        seed: 4,
        workload: workload(),
        design: buildBloom(c, { forwarding: false }),
      });
      expect(bad.mismatchCount + bad.model.compareMemories((n, a) => bad.sim.readMemory(n, a)).count).toBeGreaterThan(
        0,
      );
    });

  it('basic: test-and-insert of keys whose probes repeat a bit answers as of before the op (the AND needs no correction)', () => {
    // 16 bits and k = 8: most keys probe some bit twice; a universe of 64 keys, cleared often.
    const c = deriveBloom({ name: 'd', filter: 'basic', k: 8, bits: 16, keyBits: 32, seed: 1 });
    const r = driveConfig(c, {
      ops: 3000,
      seed: 2,
      mix: { testAndInsert: 4, query: 1, clear: 0.3 },
      workload: uniformWorkload(c.keyBits, 64),
    });
    expect(r.mismatches).toEqual([]);
    expect(r.model.compareMemories((n, a) => r.sim.readMemory(n, a)).mismatches).toEqual([]);
  });
});

describe('clear and reset', () => {
  for (const name of PRESETS)
    it(`${name}: a clear-heavy stream with back-pressure equals the model, memories included`, () => {
      const c = preset(name);
      const r = driveConfig(c, {
        ops: 3000,
        seed: 8,
        backpressure: 0.3,
        idle: 0.1,
        mix: { query: 4, insert: 4, testAndInsert: 2, clear: 0.03 },
      });
      expect(r.finished, r.stopReason ?? '').toBe(true);
      expect(r.mismatches).toEqual([]);
      expect(r.model.compareMemories((n, a) => r.sim.readMemory(n, a)).mismatches).toEqual([]);
    });

  it('after rst the filter reads empty: in_ready low for the sweep, then the inserted keys are gone', () => {
    const c = preset('bloom_partitioned_k4_4k');
    const sim = new CompiledSim(buildBloom(c));
    sim.poke('out_ready', 1);
    const untilReady = (): number => {
      let n = 0;
      while (sim.peek('in_ready') === 0n) {
        sim.step();
        n++;
      }
      return n;
    };
    const send = (op: number, key: bigint): void => {
      expect(sim.peek('in_ready')).toBe(1n);
      sim.poke('in_valid', 1);
      sim.poke('in_op', op);
      sim.poke('in_key', key);
      sim.step();
      sim.poke('in_valid', 0);
    };
    const answers = (): boolean[] => {
      const out: boolean[] = [];
      for (let i = 0; i < 20; i++) {
        if (sim.peek('out_valid') === 1n) out.push(sim.peek('out_hit') === 1n);
        sim.step();
      }
      return out;
    };
    expect(untilReady()).toBe(sweepCycles(c));
    const keys = [0x1234n, 0xdead_beefn, 0x5555_0000_aaaan];
    for (const k of keys) send(OP.insert, k);
    answers();
    for (const k of keys) send(OP.query, k);
    expect(answers()).toEqual([true, true, true]);
    sim.poke('rst', 1);
    sim.step();
    sim.poke('rst', 0);
    expect(untilReady()).toBe(sweepCycles(c));
    for (const k of keys) send(OP.query, k);
    expect(answers()).toEqual([false, false, false]);
  });
});

describe('manifest', () => {
  it('records the initiation interval and the latency in the parameters', () => {
    const f = filterOf(preset('bloom_basic_k4_16k'));
    const m = f.manifest() as { parameters: Record<string, unknown>; latency: { cycles: number } };
    expect(m.parameters).toMatchObject({ filter: 'basic', k: 4, m: 16384, n: 2839, initiationInterval: 4 });
    expect(m.latency.cycles).toBe(12);
  });
});
