import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { ioHarness, portBits } from '../../src/synth/harness.js';
import { device } from '../../src/device/index.js';
import { lanePresets } from '../../src/config/lanes.js';
import { Rng } from '../../src/util/rng.js';
import { Interpreter } from '../../sim/interp.js';
import { lint } from '../helpers/tools.js';

/** A small design with registers and a combinational output, 8 + 5 input bits, 9 + 8 output bits. */
function small() {
  const m = new ModuleBuilder('tiny_design');
  const a = m.input('a', 8);
  const b = m.input('b', 5);
  const acc = m.reg('acc', 9);
  acc.next(acc.add(a.zext(9)).add(b.zext(9)));
  m.output('acc_out', acc);
  m.output('x', a.xor(b.zext(8)));
  return m.build();
}

const parity = (v: bigint): bigint => {
  let p = 0n;
  for (; v; v >>= 1n) p ^= v & 1n;
  return p;
};

describe('the place-and-route pin harness (synth of designs with more port bits than pins)', () => {
  it('wraps only a design with more port bits than pins', () => {
    const d = small();
    expect(portBits(d)).toBe(8 + 5 + 9 + 8 + 1); // rst included
    expect(ioHarness(d, 31)).toBeNull();
    const h = ioHarness(d, 30)!;
    expect(h).not.toBeNull();
    expect({ inputBits: h.inputBits, outputBits: h.outputBits }).toEqual({ inputBits: 13, outputBits: 17 });
    expect(h.design.inputs.map((p) => p.name).sort()).toEqual(['io_sin', 'rst']);
    expect(h.design.outputs.map((p) => p.name)).toEqual(['io_sout']);
  });

  it('feeds the design from its shift chain and drives the pin with the parity of its outputs two cycles later', () => {
    const d = small();
    const h = ioHarness(d, 8)!;
    const outer = new Interpreter(h.design);
    const inner = new Interpreter(d);
    const rng = new Rng(7);
    let chain = 0n;
    const mask = (1n << 13n) - 1n;
    const p: bigint[] = [];
    for (let t = 0; t < 200; t++) {
      // The design's inputs at cycle t are the chain's slices, the first input in the low bits.
      inner.poke('a', chain & 0xffn);
      inner.poke('b', (chain >> 8n) & 0x1fn);
      p.push(parity(inner.peek('acc_out') | (inner.peek('x') << 9n)));
      if (t >= 2) expect(outer.peek('io_sout'), `cycle ${t}`).toBe(p[t - 2]);
      const bit = rng.float() < 0.5 ? 1n : 0n;
      outer.poke('io_sin', bit);
      chain = ((chain << 1n) | bit) & mask;
      outer.step();
      inner.step();
    }
  });

  it('takes the 4-lane presets (more port bits than the HX8K has pins), not the 2-lane ones; lint clean', async () => {
    const pins = device('ice40-hx8k').pins!;
    for (const l of lanePresets()) {
      const d = l.design();
      const h = ioHarness(d, pins);
      expect(h === null, d.name).toBe(l.lanes < 4);
      if (h && l.base.config.target === 'ice40-hx8k') expect(await lint(h.design)).toEqual({ code: 0, output: '' });
    }
  }, 120_000);
});
