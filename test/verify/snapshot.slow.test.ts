/**
 * The control port in the other engines (full tier): the cycles of a snapshot round trip — the
 * stream, the freeze, the scan chain read-out and the block RAM reads on A, the restore on a fresh
 * B, both going on — replayed in Verilator, every port every cycle equal to the TS simulator's;
 * and the control design's AXI4-Stream wrapper through Yosys like every preset (check -assert, no
 * latches, the core's block RAMs still inferred, no more of them) — and in `make test-full` the
 * control design on its own the same way.
 */
import { describe, expect, it } from 'vitest';
import { cosimulate } from '../../sim/cosim/index.js';
import { loadConfig } from '../../src/config/resolve.js';
import { roundTrip } from '../../src/verify/roundtrip.js';
import { buildAxis } from '../../src/ip/axis.js';
import type { Design } from '../../src/ir/types.js';
import { yosys } from '../../src/synth/index.js';
import { fullTier } from '../helpers/presets.js';

describe('control port: Verilator and Yosys', () => {
  for (const name of ['apbf_k4_l3', 'btbf_k4_w512_b16', 'ibf_imp_k4_m4']) {
    it(`${name}: the round trip's take and restore cycles, TS simulator = Verilator on every port`, async () => {
      const f = loadConfig(name);
      const r = roundTrip(f, { cycles: 1500, at: 700, seed: 5 });
      expect(r.mismatchCount).toBe(0);
      const d = f.controlDesign();
      for (const stim of [r.stimulusA, r.stimulusB]) {
        const c = await cosimulate(d, stim, { interpreter: false, verilator: true });
        expect(c.mismatches).toBe(0);
        expect(c.cycles).toBe(stim.length);
      }
    });
  }

  // The AXI4-Stream wrapper holds the control wrapper, so in `make test` Yosys runs on it alone;
  // `make test-full` runs the control wrapper on its own too.
  const wrappers: [string, () => Design][] = [
    [
      'apbf_k4_l3_ctl_axis (the AXI4-Stream wrapper with the control port)',
      () => buildAxis(loadConfig('apbf_k4_l3'), { control: true }),
    ],
  ];
  if (fullTier())
    wrappers.unshift(['apbf_k4_l3_ctl (the control port)', () => loadConfig('apbf_k4_l3').controlDesign()]);
  for (const [what, build] of wrappers)
    it(`${what} through Yosys synth_ice40: check -assert passes, no latches, the same block RAMs as the core`, async () => {
      const { result: core } = await yosys(loadConfig('apbf_k4_l3').design(), 'ice40-hx8k');
      const { result: r } = await yosys(build(), 'ice40-hx8k');
      expect(r.exitCode, r.errors.join('\n')).toBe(0);
      expect(r.problems).toBe(0);
      expect(r.latches).toEqual([]);
      expect(r.brams).toBe(core.brams);
    });
});
