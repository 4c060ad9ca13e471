/** The AXI4-Stream wrapper on two presets (every preset: axis.slow.test.ts). */
import { describe, it } from 'vitest';
import { checkAxis } from '../helpers/axis.js';

describe('AXI4-Stream wrapper: equals its core, and Verilator agrees', () => {
  for (const preset of ['apbf_k4_l3', 'btbf_k3_w256_b8_decision'])
    it(`${preset}: 3000 random cycles`, () => checkAxis(preset, 3000));
});
