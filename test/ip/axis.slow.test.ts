/**
 * Full tier: the AXI4-Stream wrapper of every preset equals its core cycle by cycle (the packing of
 * every preset's fields); Verilator agrees with the wrapper on each family's smallest preset (the
 * wrapper's logic is the same for every preset of a family; a Verilator build per preset took
 * most of this file's 208 s — the cores themselves are on Verilator in
 * conformance/cosim.slow.test.ts).
 */
import { describe, it } from 'vitest';
import { presetNames } from '../../src/config/resolve.js';
import { checkAxis } from '../helpers/axis.js';
import { smallestPresetPerFamily } from '../helpers/presets.js';

const onVerilator = new Set(smallestPresetPerFamily());

describe('AXI4-Stream wrapper of every preset', () => {
  for (const preset of presetNames()) {
    const verilator = onVerilator.has(preset);
    it(`${preset}: 3000 random cycles${verilator ? ', and Verilator agrees' : ''}`, () =>
      checkAxis(preset, 3000, { verilator }));
  }
});
