/**
 * Slow tier: the AXI4-Stream wrapper of each preset equals its core cycle by cycle (the packing of
 * the preset's fields) — on the presets covering every pipeline and target in `make test`, on
 * every preset in `make test-full`; Verilator agrees with the wrapper on each family's smallest preset (the
 * wrapper's logic is the same for every preset of a family; a Verilator build per preset took
 * most of this file's 208 s — the cores themselves are on Verilator in
 * conformance/cosim.slow.test.ts).
 */
import { describe, it } from 'vitest';
import { checkAxis } from '../helpers/axis.js';
import { slowTierPresets, smallestPresetPerFamily } from '../helpers/presets.js';

const onVerilator = new Set(smallestPresetPerFamily());
const tier = slowTierPresets();
const presets = [...new Set([...tier.filters.map((f) => f.name), ...onVerilator])].sort();

describe(`AXI4-Stream wrapper: ${tier.which}; each family's smallest on Verilator too`, () => {
  for (const preset of presets) {
    const verilator = onVerilator.has(preset);
    it(`${preset}: 3000 random cycles${verilator ? ', and Verilator agrees' : ''}`, () =>
      checkAxis(preset, 3000, { verilator }));
  }
});
