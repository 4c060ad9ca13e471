import { describe, expect, it } from 'vitest';
import { buildFilter, deriveFilter, filterLatency } from '../../src/families/legacy.js';
import { loadPreset, presetNames } from '../../src/presets/index.js';
import { CompiledSim } from '../../sim/compiled.js';

// The manifest's latency is what an integrator builds around: measure it in the simulator.
// A query is accepted at one rising edge; out_valid must rise exactly `latency` edges later
// (out_ready held high), and stay low before.
describe('declared latency equals the measured latency', () => {
  for (const name of presetNames()) {
    it(`${name}: out_valid rises manifest.latency cycles after acceptance`, () => {
      const c = deriveFilter(loadPreset(name), name);
      const d = buildFilter(c);
      const sim = new CompiledSim(d);
      for (const p of d.inputs) sim.poke(p.name, 0n);
      sim.poke('out_ready', 1n);
      let guard = 0;
      while (sim.peek('in_ready') !== 1n) {
        sim.step();
        if (++guard > 100_000) throw new Error('in_ready never rose');
      }
      sim.poke('in_valid', 1n); // op 0 = query in every filter
      sim.step();
      sim.poke('in_valid', 0n);
      let edges = 1;
      while (sim.peek('out_valid') !== 1n && edges < 100) {
        sim.step();
        edges++;
      }
      expect(edges).toBe(filterLatency(c));
    });
  }
});
