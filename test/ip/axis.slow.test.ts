/** Full tier: the AXI4-Stream wrapper of every preset equals its core, and Verilator agrees. */
import { describe, it } from 'vitest';
import { presetNames } from '../../src/config/resolve.js';
import { checkAxis } from '../helpers/axis.js';

describe('AXI4-Stream wrapper of every preset', () => {
  for (const preset of presetNames()) it(`${preset}: 3000 random cycles`, () => checkAxis(preset, 3000));
});
