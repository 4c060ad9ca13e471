import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { xorTree } from '../../src/stages/hash.js';
import { combOrder } from '../../src/ir/topo.js';
import { Rng } from '../../src/util/rng.js';
import { Interpreter } from '../../sim/interp.js';

describe('xorTree (the hash pieces of APBF/APBBF)', () => {
  it('is the XOR of its inputs for 1 to 18 inputs, in at most ceil(log4 n) levels of 4-input groups', () => {
    const rng = new Rng(3);
    for (let n = 1; n <= 18; n++) {
      const m = new ModuleBuilder(`x${n}`);
      const ins = Array.from({ length: n }, (_, i) => m.input(`i${i}`, 8));
      m.output('y', xorTree(ins));
      const d = m.build();
      // n - 1 two-input XORs, no path through more than 2 * ceil(log4 n) of them (a chain: n - 1).
      expect(d.cells.filter((c) => c.kind === 'bitwise').length).toBe(n - 1);
      const depth = new Map<number, number>();
      for (const c of combOrder(d))
        if (c.kind === 'bitwise') depth.set(c.out, 1 + Math.max(depth.get(c.a) ?? 0, depth.get(c.b) ?? 0));
      const levels = Math.max(0, ...depth.values());
      expect(levels).toBeLessThanOrEqual(2 * Math.ceil(Math.log(n) / Math.log(4)));
      const sim = new Interpreter(d);
      for (let t = 0; t < 20; t++) {
        let want = 0n;
        for (let i = 0; i < n; i++) {
          const v = BigInt(Math.floor(rng.float() * 256));
          want ^= v;
          sim.poke(`i${i}`, v);
        }
        expect(sim.peek('y')).toBe(want);
      }
    }
  });
});
