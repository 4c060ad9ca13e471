/** Full tier: every example design on every engine, and the benchmark design on Verilator. */
import { describe, expect, it } from 'vitest';
import { EXAMPLES, h3Banks } from '../../src/examples/index.js';
import { cosimulate } from '../../sim/cosim/index.js';
import { randomStimulus } from '../../sim/stimulus.js';
import { cosimExample } from '../helpers/cosim.js';

describe('co-simulation of every example: TS compiled = interpreter = Verilator = Icarus', () => {
  for (const name of Object.keys(EXAMPLES)) it(`${name}`, () => cosimExample(name));

  it('the benchmark design (8 H3 units + 8 block RAMs) agrees on Verilator', async () => {
    const d = h3Banks();
    const r = await cosimulate(d, randomStimulus(d, 5000, 3), { interpreter: false });
    expect(r.mismatches).toBe(0);
  });
});
