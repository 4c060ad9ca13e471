import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { h3Matrix, h3Reference } from '../../src/ir/h3.js';
import { chunkedH3, wideH3 } from '../../src/stages/hash.js';
import { Rng } from '../../src/util/rng.js';
import { CompiledSim } from '../../sim/compiled.js';

describe('chunkedH3 and wideH3', () => {
  for (const chunkBits of [undefined, 4, 7, 16]) {
    it(`chunkedH3 (chunks of ${chunkBits ?? 'the whole key'} bits) is the H3 hash of the key one cycle earlier`, () => {
      const keyBits = 40;
      const m = new ModuleBuilder('ch');
      const key = m.input('key', keyBits);
      m.output('h', chunkedH3(m, { key, bits: 13, seed: 7, salt: 3, chunkBits, name: 'hash' }));
      const d = m.build();
      const pieces = d.cells.filter((c) => c.kind === 'reg').length;
      expect(pieces).toBe(Math.ceil(keyBits / (chunkBits ?? keyBits)));
      const rows = h3Matrix(7, 3, keyBits, 13);
      const sim = new CompiledSim(d);
      const rng = new Rng(chunkBits ?? 0);
      let want: bigint | null = null;
      for (let t = 0; t < 200; t++) {
        const k = rng.bits(keyBits);
        sim.poke('key', k);
        if (want !== null) expect(sim.peek('h')).toBe(want);
        want = h3Reference(rows, k);
        sim.step();
      }
    });
  }

  it('wideH3: units of unitBits (unit u salted by salt(u), unit 0 low), registered again: latency 2', () => {
    const keyBits = 64;
    const m = new ModuleBuilder('wide');
    const key = m.input('key', keyBits);
    m.output(
      'h',
      wideH3(m, { key, bits: 45, unitBits: 32, seed: 1, salt: (u) => 10 + u, chunkBits: 16, name: 'hash' }),
    );
    const sim = new CompiledSim(m.build());
    const lo = h3Matrix(1, 10, keyBits, 32);
    const hi = h3Matrix(1, 11, keyBits, 13);
    const rng = new Rng(5);
    const wants: bigint[] = [];
    for (let t = 0; t < 200; t++) {
      const k = rng.bits(keyBits);
      sim.poke('key', k);
      if (t >= 2) expect(sim.peek('h')).toBe(wants[t - 2]);
      wants.push((h3Reference(hi, k) << 32n) | h3Reference(lo, k));
      sim.step();
    }
  });
});
