/**
 * N-lane filters on Verilator: the input rows of a verified run (random requests, idle cycles and
 * out<i>_ready on every lane) replayed on Verilator give the simulator's outputs on every port in
 * every cycle, and the widest shape lints clean (the APBBF's lanes on Verilator in `make test-full`).
 */
import { describe, expect, it } from 'vitest';
import { loadLaneConfig } from '../../src/config/lanes.js';
import { driveLanes, laneCosim } from '../../src/verify/lanes.js';
import { CompiledSim } from '../../sim/compiled.js';
import { lint } from '../helpers/tools.js';
import { fullTier } from '../helpers/presets.js';
import { benchStimulus, simBench } from '../../src/bench/sim.js';
import { defaultVariant } from '../../sim/cosim/verilator.js';

// The blocked variant (the largest lane build here): in `make test-full`. `make test` has the lane
// wrapper and the APBF family's shards on Verilator below, the blocked core on Verilator on one
// lane (conformance/cosim.slow.test.ts), and its lanes against the model in the TS simulator
// (lanes.test.ts).
const onVerilator: [string, number, number, number][] = [['apbf_k4_l3', 4, 8, 0.2]];
if (fullTier()) onVerilator.push(['apbbf_k2_l3_b512_4', 2, 4, 0.3]);

describe('lanes on Verilator', () => {
  it.each(onVerilator)(
    '%s, %i lanes, %i shards, back-pressure %f: simulator = Verilator, answers = model',
    async (preset, N, S, bp) => {
      const lf = loadLaneConfig(preset, { lanes: N, shards: S, target: 'ecp5' });
      const r = driveLanes(lf, { opsPerLane: Math.ceil(8000 / N), seed: 4, backpressure: bp, idle: 0.1, record: true });
      expect(r.mismatches).toEqual([]);
      const cmp = await laneCosim(lf, r);
      expect(cmp.cycles).toBe(r.cycles);
      expect(cmp.mismatches).toEqual([]);
    },
    300_000,
  );

  it('8 lanes, 8 shards: verilator -Wall clean', async () => {
    const r = await lint(loadLaneConfig('apbf_k4_l3', { lanes: 8, shards: 8, target: 'ecp5' }).design());
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  }, 120_000);

  it('bench:sim stimulus drives every lane; the simulator and Verilator agree on it', async () => {
    const d = loadLaneConfig('apbf_k4_l3', { lanes: 2, shards: 2, target: 'ecp5' }).design();
    const stim = benchStimulus(d, 64);
    const sim = new CompiledSim(d);
    const at = (name: string): number => sim.layout.inputOffsets[d.inputs.findIndex((p) => p.name === name)]!;
    for (const port of ['in0_valid', 'in1_valid', 'out0_ready', 'out1_ready'])
      for (let c = 0; c < 64; c++) expect(stim[c * sim.layout.inputWords + at(port)]).toBe(1);
    // The tests' own Verilator build (quick), not the benches' -O3 -march=native one.
    const r = await simBench(d, 20_000, defaultVariant());
    expect(r.outputsEqual).toBe(true);
  }, 300_000);
});
