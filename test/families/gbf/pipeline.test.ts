/**
 * GBF pipelines beyond the conformance suite (test/conformance: goldens, lint, synthesis, model ≡
 * simulator ≡ Verilator): the checks are not vacuous (a pipeline without forwarding is caught),
 * one op per cycle with no stall on a long stream (the family has no aging events for the
 * conformance zero-stall run to cross), the latency of the count stages for few and many banks,
 * clear under back-pressure, and the decision unit's answers on random classes and ratios.
 */
import { describe, expect, it } from 'vitest';
import { deriveGbf } from '../../../src/families/gbf/config.js';
import { gbfLatency } from '../../../src/families/gbf/params.js';
import { buildGbf } from '../../../src/families/gbf/rtl.js';
import type { GbfDerived } from '../../../src/families/gbf/types.js';
import { CompiledSim } from '../../../sim/compiled.js';
import type { DriveResult } from '../../../src/verify/stream.js';
import { driveConfig, presetConfig, presetsOf } from '../../helpers/families.js';
import { pipelineShape } from '../../helpers/presets.js';

const banks = (r: DriveResult) => r.model.compareMemories((name, addr) => r.sim.readMemory(name, addr));

const small = deriveGbf({
  name: 'small_gbf',
  filter: 'gbf',
  k0: 2,
  k1: 3,
  cellsPerBank: 64,
  wordBits: 4,
  window: 100,
  keyBits: 32,
  seed: 3,
});

/** Edges from the accepting edge of a lone query to out_valid (out_ready high). */
function measuredLatency(c: GbfDerived): number {
  const sim = new CompiledSim(buildGbf(c));
  sim.poke('out_ready', 1n);
  while (sim.peek('in_ready') !== 1n) sim.step();
  sim.poke('in_op', 0n);
  sim.poke('in_valid', 1n);
  sim.step();
  sim.poke('in_valid', 0n);
  let edges = 1;
  while (sim.peek('out_valid') !== 1n && edges < 100) {
    sim.step();
    edges++;
  }
  return edges;
}

describe('GBF pipeline behaviour', () => {
  it('there are plain and decision-unit presets', () => {
    const cs = presetsOf('gbf').map((n) => presetConfig<GbfDerived>(n));
    expect(cs.some((c) => c.decision === null)).toBe(true);
    expect(cs.some((c) => c.decision !== null)).toBe(true);
  });

  it('the correct pipeline passes the same run the broken one fails', () => {
    const r = driveConfig(small, { ops: 20_000, seed: 1 });
    expect(r.finished).toBe(true);
    expect(r.mismatches).toEqual([]);
    expect(banks(r).mismatches).toEqual([]);
  });

  it('without forwarding, back-to-back hazards give wrong answers (caught)', () => {
    const r = driveConfig(small, { ops: 20_000, seed: 1, design: buildGbf(small, { forwarding: false }) });
    expect(r.mismatchCount + banks(r).count).toBeGreaterThan(0);
  });

  it('one op per cycle: 10^5 test-and-inserts back to back, 0 stall cycles', () => {
    const ops = 100_000;
    const r = driveConfig(small, { ops, seed: 4, mix: { testAndInsert: 1 } });
    expect(r.finished).toBe(true);
    expect(r.stallCycles).toBe(0);
    expect(r.lastAccept - r.firstAccept + 1).toBe(ops);
    expect(r.mismatches).toEqual([]);
  });

  it('the latency follows the count stages: two up to 16 banks, three above, +3 with the decision unit', () => {
    const cfg = (k0: number, k1: number, decision: boolean) =>
      deriveGbf({
        name: 'lat',
        filter: 'gbf',
        k0,
        k1,
        cellsPerBank: 32,
        window: 50,
        keyBits: 16,
        seed: 1,
        ...(decision ? { decision: { classes: [{ px: 0.01 }] } } : {}),
      });
    for (const [k0, k1, want] of [
      [1, 1, 9],
      [2, 2, 9],
      [8, 8, 9],
      [9, 8, 10],
      [20, 30, 10],
    ] as const) {
      for (const dec of [false, true]) {
        const c = cfg(k0, k1, dec);
        expect(gbfLatency(c)).toBe(want + (dec ? 3 : 0));
        expect(measuredLatency(c), `k0=${k0} k1=${k1} decision=${dec}`).toBe(gbfLatency(c));
      }
    }
  });

  it('many banks (k0 + k1 = 40), clear, back-pressure and idle cycles: every answer and cell as the model', () => {
    const c = deriveGbf({
      name: 'wide',
      filter: 'gbf',
      k0: 17,
      k1: 23,
      cellsPerBank: 16,
      wordBits: 2,
      window: 10,
      keyBits: 48,
      seed: 5,
      decision: { classes: [{ px: 0.2 }, { px: 0.01, window: 40 }, { px: 0.5, window: 3 }], posteriorBits: 10 },
    });
    const r = driveConfig(c, {
      ops: 20_000,
      seed: 9,
      backpressure: 0.4,
      idle: 0.2,
      mix: { query: 3, insert: 3, testAndInsert: 3, clear: 0.01 },
    });
    expect(r.responses).toBe(20_000);
    expect(r.mismatches).toEqual([]);
    expect(banks(r).mismatches).toEqual([]);
  });
});

describe('test cover', () => {
  it('a decision unit is a pipeline shape of its own in the test cover (test/helpers/presets.ts)', () => {
    expect(pipelineShape('gbf_k4_c4096_decision')).not.toBe(pipelineShape('gbf_k4_c4096'));
  });
});
