/**
 * Conformance, part 5 (full tier): every preset synthesises on its target with Yosys: `check
 * -assert` passes (0 problems), no latches, memories inferred as block RAM — on iCE40 exactly as
 * many SB_RAM40_4K as the estimate `synth` refuses oversize designs with, and LUTs within the
 * part. On ECP5 and Xilinx, where no part size is checked, synthesis stops before LUT mapping
 * (`-run :map_luts`: memories, flip-flops and gates mapped, ABC not run) — the checks above are
 * settled by then, and ABC is most of the time on those large presets. Yosys results are cached
 * under .cache/yosys (the same cache `bloomforge synth` uses). `make test` runs it on the presets
 * that cover every filter value and target, each the smallest (test/helpers/presets.ts): a
 * filter's other pipeline shapes — the APBF's key mix, spectral RM, IBF's insert rule, the GBF's
 * decision unit, and for the BTBF the plain pipeline (its smallest preset has the decision unit) —
 * go through Yosys in `make test-full`, which runs every preset (Yosys was the largest part of
 * `make test`).
 */
import { describe, expect, it } from 'vitest';
import { device } from '../../src/device/index.js';
import { blockRamEstimate, yosys } from '../../src/synth/index.js';
import { slowTierPresets } from '../helpers/presets.js';

const tier = slowTierPresets(process.env, 'filter');

describe(`Yosys on ${tier.which}`, () => {
  for (const f of tier.filters) {
    const target = f.config.target;
    const dev = device(target);
    const upToLuts = !dev.capacity;
    it(`${f.name}: Yosys ${dev.synth}${upToLuts ? ' up to LUT mapping' : ''}: check -assert passes, no latches, block RAMs inferred`, async () => {
      const { result: r } = await yosys(f.design(), target, { upToLuts });
      expect(r.exitCode, `${f.name} on ${target}: ${r.errors.join('\n')}`).toBe(0);
      expect(r.problems).toBe(0);
      expect(r.latches).toEqual([]);
      expect(r.brams).toBeGreaterThan(0);
      if (dev.capacity) {
        expect(r.brams).toBe(blockRamEstimate(f.design(), target));
        expect(r.brams).toBeLessThanOrEqual(dev.capacity.brams);
        expect(r.luts).toBeLessThanOrEqual(dev.capacity.luts);
      }
    });
  }
});
