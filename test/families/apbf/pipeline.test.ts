import { describe, expect, it } from 'vitest';
import { buildApbf } from '../../../src/families/apbf/rtl.js';
import { deriveApbf } from '../../../src/families/apbf/config.js';
import { CLEAR_DELAY } from '../../../src/stages/clear.js';
import type { ApbfDerived } from '../../../src/families/apbf/types.js';
import { ApbfModel } from '../../../src/families/apbf/model.js';
import { ExactWindow } from '../../../src/model/window.js';
import { distinctWorkload, uniformWorkload } from '../../../src/model/workloads.js';
import { driveConfig, presetConfig } from '../../helpers/families.js';
import { Rng } from '../../../src/util/rng.js';
import { pipelineShape } from '../../helpers/presets.js';

const preset = (n: string): ApbfDerived => presetConfig<ApbfDerived>(n);

describe('APBF/APBBF pipelines', () => {
  for (const name of ['apbf_k4_l3', 'apbf_k14_l11', 'apbbf_k2_l5_b512_4']) {
    it(`${name}: one op per cycle across >= 10 shifts with 0 stall cycles and the model's answers`, () => {
      const c = preset(name);
      const ops = 12 * c.generation + 500;
      const r = driveConfig(c, { ops, seed: 9, mix: { query: 1, insert: 3, testAndInsert: 2 } });
      expect(r.finished).toBe(true);
      expect(r.agingEvents).toBeGreaterThanOrEqual(10);
      expect(r.stallCycles).toBe(0);
      expect(r.mismatches).toEqual([]);
      // Power-up sweep, then exactly one op per cycle, then the pipeline drains (latency and
      // the driver's idle cycles after the last response).
      expect(r.lastAccept - r.firstAccept + 1).toBe(ops);
      expect(r.cycles).toBeLessThanOrEqual(ops + c.columnDepth + 30);
    });
  }

  it('a config at the zero-stall bound still never stalls; ticks faster than clearing do stall', () => {
    // g chosen so that clearing a bank (depth + delay + 1 cycles) just fits in one generation.
    const c = deriveApbf({
      name: 'tight',
      filter: 'apbf',
      k: 4,
      l: 3,
      sliceBits: 4096,
      generation: 261,
      keyBits: 32,
      seed: 2,
    });
    expect(c.spares).toBe(1);
    const r = driveConfig(c, { ops: 12 * 261, seed: 1, mix: { query: 0, insert: 1, testAndInsert: 0 } });
    expect(r.stallCycles).toBe(0);
    const t = driveConfig(c, { ops: 3000, seed: 1, mix: { query: 5, insert: 5, tick: 1 } });
    expect(t.stallCycles).toBeGreaterThan(0);
    expect(t.finished).toBe(true);
    expect(t.mismatches).toEqual([]);
  });

  it('without write forwarding, back-to-back inserts of one key give wrong answers (verification is not vacuous)', () => {
    const c = preset('apbf_k4_l3');
    const workload = uniformWorkload(c.keyBits, 8); // tiny universe: many same-word hazards
    const good = driveConfig(c, { ops: 3000, seed: 4, workload });
    expect(good.mismatches).toEqual([]);
    const bad = driveConfig(c, {
      ops: 3000,
      seed: 4,
      workload: uniformWorkload(c.keyBits, 8),
      design: buildApbf(c, { forwarding: false }),
    });
    expect(bad.mismatchCount).toBeGreaterThan(0);
  });

  it('the model never gives a false negative over long streams (every preset, every key in the window)', () => {
    for (const name of ['apbf_k4_l3', 'apbf_k14_l11', 'apbbf_k2_l5_b512_4']) {
      const c = preset(name);
      const model = new ApbfModel(c);
      const exact = new ExactWindow(c.window);
      const recent: bigint[] = [];
      const work = distinctWorkload(c.keyBits);
      const rng = new Rng(1);
      for (let i = 0; i < 4 * c.window; i++) {
        const key = work.nextKey(rng);
        model.insert(key);
        exact.insert(key);
        recent.push(key);
        if (recent.length > c.window) recent.shift();
        // Probe a few keys of the window each step, and all of it at a shift boundary.
        const probes = model.count === c.generation ? recent : [recent[0]!, recent[recent.length >> 1]!, key];
        for (const k of probes) expect(model.query(k)).toBe(true);
      }
    }
  });

  it('query by Algorithm 1 equals the brute-force window check', () => {
    const c = preset('apbf_k4_l3');
    const model = new ApbfModel(c);
    const w = uniformWorkload(c.keyBits, 3 * c.window);
    const rng = new Rng(2);
    for (let i = 0; i < 20_000; i++) {
      const key = w.nextKey(rng);
      if (i % 3 === 0) model.insert(key);
      else expect(model.query(key)).toBe(model.queryBrute(key));
    }
  });
});

describe('reset', () => {
  it('after rst the filter reads empty: in_ready stays low during the sweep, then inserted keys are gone', async () => {
    const { CompiledSim } = await import('../../../sim/compiled.js');
    const c = preset('apbf_k4_l3');
    const sim = new CompiledSim(buildApbf(c));
    const cycleUntilReady = (): number => {
      let n = 0;
      while (sim.peek('in_ready') === 0n) {
        sim.step();
        n++;
      }
      return n;
    };
    const send = (op: number, key: bigint): void => {
      sim.poke('in_valid', 1);
      sim.poke('in_op', op);
      sim.poke('in_key', key);
      sim.poke('out_ready', 1);
      expect(sim.peek('in_ready')).toBe(1n);
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
    const powerUp = cycleUntilReady();
    expect(powerUp).toBe(c.columnDepth + CLEAR_DELAY); // in_ready low for the whole sweep
    for (const k of [11n, 22n, 33n]) send(1, k);
    answers();
    for (const k of [11n, 22n, 33n]) send(0, k);
    expect(answers()).toEqual([true, true, true]);
    sim.poke('rst', 1);
    sim.step();
    sim.poke('rst', 0);
    expect(cycleUntilReady()).toBe(c.columnDepth + CLEAR_DELAY);
    for (const k of [11n, 22n, 33n]) send(0, k);
    expect(answers()).toEqual([false, false, false]);
  });
});

describe('model word API', () => {
  it('testAndInsertWords gives the same answers and bit arrays as testAndInsert on bigint keys', () => {
    const c = preset('apbbf_k2_l5_b512_4');
    const a = new ApbfModel(c);
    const b = new ApbfModel(c);
    const w = uniformWorkload(c.keyBits, 3 * c.window);
    const rng = new Rng(8);
    const words = new Uint32Array(2);
    for (let i = 0; i < 20_000; i++) {
      const key = w.nextKey(rng);
      words[0] = Number(key & 0xffffffffn);
      words[1] = Number(key >> 32n);
      expect(b.testAndInsertWords(words)).toBe(a.testAndInsert(key));
    }
    expect(b.columns).toEqual(a.columns);
  });
});

describe('test cover', () => {
  it('the SPN key mix is a pipeline shape of its own in the test cover, k and l are not (test/helpers/presets.ts)', () => {
    expect(pipelineShape('apbf_k4_l3_mix')).not.toBe(pipelineShape('apbf_k4_l3'));
    expect(pipelineShape('apbf_k10_l7')).toBe(pipelineShape('apbf_k4_l3'));
  });
});
