import { describe, expect, it } from 'vitest';
import { deriveIbf } from '../../../src/families/ibf/config.js';
import { LATENCY } from '../../../src/families/ibf/params.js';
import { buildIbf } from '../../../src/families/ibf/rtl.js';
import type { IbfStreamModel } from '../../../src/families/ibf/stream.js';
import type { IbfDerived } from '../../../src/families/ibf/types.js';
import { uniformWorkload } from '../../../src/model/workloads.js';
import { driveConfig, presetConfig, presetsOf } from '../../helpers/families.js';
import { pipelineShape } from '../../helpers/presets.js';

const preset = (n: string): IbfDerived => presetConfig<IbfDerived>(n);

describe('importance-aware Bloom filter pipelines', () => {
  for (const name of presetsOf('ibf')) {
    it(`${name}: one op per cycle (every insert deleting) with 0 stall cycles and the model's answers and memories`, () => {
      const c = preset(name);
      const ops = 6000;
      const r = driveConfig(c, { ops, seed: 9, mix: { query: 1, insert: 3, testAndInsert: 2 } });
      expect(r.finished).toBe(true);
      expect(r.stallCycles).toBe(0);
      expect(r.mismatches).toEqual([]);
      expect(r.lastAccept - r.firstAccept + 1).toBe(ops);
      expect(r.cycles).toBeLessThanOrEqual(ops + c.depth + LATENCY + 30);
      expect(r.model.compareMemories((n, a) => r.sim.readMemory(n, a)).mismatches).toEqual([]);
    });
  }

  it('without write forwarding, back-to-back ops on one word give wrong answers or memories (the verification is not vacuous)', () => {
    for (const name of presetsOf('ibf')) {
      const c = preset(name);
      const mix = { query: 1, insert: 2, testAndInsert: 2 };
      const good = driveConfig(c, { ops: 3000, seed: 4, workload: uniformWorkload(c.keyBits, 6), mix });
      expect(good.mismatches).toEqual([]);
      expect(good.model.compareMemories((n, a) => good.sim.readMemory(n, a)).count).toBe(0);
      const bad = driveConfig(c, {
        ops: 3000,
        seed: 4,
        workload: uniformWorkload(c.keyBits, 6),
        mix,
        design: buildIbf(c, { forwarding: false }),
      });
      const wrong = bad.mismatchCount + bad.model.compareMemories((n, a) => bad.sim.readMemory(n, a)).count;
      expect(wrong, name).toBeGreaterThan(0);
    }
  });

  it('Imp-insert writes the importance into the block RAM cells, M-insert writes MAX (values compared bit for bit)', () => {
    for (const insert of ['imp', 'max'] as const) {
      const c = deriveIbf({ name: 'v', filter: 'ibf', insert, k: 2, max: 6, cells: 64, P: 0, keyBits: 32, seed: 7 });
      const r = driveConfig(c, { ops: 400, seed: 5, mix: { insert: 1 } });
      expect(r.mismatches).toEqual([]);
      expect(r.model.compareMemories((n, a) => r.sim.readMemory(n, a)).mismatches).toEqual([]);
      const cells = (r.model as IbfStreamModel).model.cells.flatMap((b) => [...b]);
      const values = new Set(cells.filter((v) => v > 0));
      if (insert === 'max') expect([...values]).toEqual([6]);
      else expect(values.size).toBeGreaterThan(3); // importances 1..6 (and the ports' 7, refused)
      expect(Math.max(...cells)).toBeLessThanOrEqual(6);
    }
  });

  it('an insert of importance 0 or above MAX is refused: out_bad = 1, hit 0, nothing changed (a documented response)', () => {
    // max = 4 on a 3-bit port: 0, 5, 6, 7 are refused.
    const c = deriveIbf({ name: 'b', filter: 'ibf', k: 3, max: 4, cells: 256, P: 3, keyBits: 32, seed: 2 });
    const r = driveConfig(c, { ops: 3000, seed: 8, mix: { query: 1, insert: 2, testAndInsert: 2 }, backpressure: 0.2 });
    expect(r.mismatches).toEqual([]);
    expect(r.model.compareMemories((n, a) => r.sim.readMemory(n, a)).mismatches).toEqual([]);
    const m = (r.model as IbfStreamModel).model;
    expect(m.refused).toBeGreaterThan(20); // one request in 32 draws any port value, 4 of 8 of them refused
    expect(m.refused).toBeLessThan(200);
  });

  it('the clear op restores the empty filter and the generator seeds', () => {
    const c = preset('ibf_imp_k4_m4');
    const r = driveConfig(c, {
      ops: 5000,
      seed: 12,
      mix: { query: 3, insert: 3, testAndInsert: 3, clear: 0.01 },
      backpressure: 0.2,
    });
    expect(r.finished).toBe(true);
    expect(r.mismatches).toEqual([]);
    expect(r.model.compareMemories((n, a) => r.sim.readMemory(n, a)).mismatches).toEqual([]);
  });
});

describe('test cover', () => {
  it('the insert rule is a pipeline shape of its own in the test cover (test/helpers/presets.ts)', () => {
    expect(pipelineShape('ibf_max_k4_m4')).not.toBe(pipelineShape('ibf_imp_k4_m4'));
  });
});
