/**
 * countOnes and truthTable (src/stages/bitCount.ts) on every input of up to eight bits: the count
 * of ones (mod 2^width, the table form up to four bits and the ripple form above), and a table of
 * a random function equal to that function.
 */
import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { countOnes, truthTable } from '../../src/stages/bitCount.js';
import { Rng } from '../../src/util/rng.js';
import { popcount } from '../../src/util/bits.js';
import { CompiledSim } from '../../sim/compiled.js';

describe('countOnes, truthTable', () => {
  for (const n of [0, 1, 2, 3, 4, 5, 6, 8])
    for (const width of [1, 2, 3, 4]) {
      it(`${n} bits counted in ${width} bits; a table of a function of them`, () => {
        const rng = new Rng(100 * n + width);
        const f = Array.from({ length: 1 << n }, () => (rng.float() < 0.5 ? 1 : 0));
        const m = new ModuleBuilder(`count${n}_${width}`);
        const bits = Array.from({ length: n }, (_, b) => m.input(`b${b}`, 1));
        m.output('count', countOnes(m, bits, width));
        if (n > 0)
          m.output(
            'table',
            truthTable(m, bits, (v) => f[v]!),
          );
        const sim = new CompiledSim(m.build());
        for (let v = 0; v < 1 << n; v++) {
          for (let b = 0; b < n; b++) sim.poke(`b${b}`, (v >> b) & 1);
          sim.settle();
          expect(sim.peek('count'), `v=${v}`).toBe(BigInt(popcount(v) % (1 << width)));
          if (n > 0) expect(sim.peek('table'), `v=${v}`).toBe(BigInt(f[v]!));
        }
      });
    }
});
