import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { compareAges, oldestAge } from '../../src/stages/ages.js';
import { bitsFor } from '../../src/stages/primitives.js';
import { Rng } from '../../src/util/rng.js';
import { CompiledSim } from '../../sim/compiled.js';

/** λ = max age, c = how many hold it; with any expired: λ = all ones, c = how many expired. */
function reference(ages: number[], expired: boolean[], width: number): { lambda: number; c: number } {
  const nExp = expired.filter((x) => x).length;
  if (nExp > 0) return { lambda: 2 ** width - 1, c: nExp };
  const max = Math.max(...ages);
  return { lambda: max, c: ages.filter((a) => a === max).length };
}

describe('compareAges + oldestAge (the TBF age-compare network)', () => {
  for (const [k, width] of [
    [1, 3],
    [2, 3],
    [3, 2],
    [4, 3],
    [6, 4],
  ] as const) {
    it(`k = ${k}, ${width}-bit ages: λ and c equal the brute force one cycle later`, () => {
      const m = new ModuleBuilder('ages');
      const ages = Array.from({ length: k }, (_, i) => m.input(`age${i}`, width));
      const expired = Array.from({ length: k }, (_, i) => m.input(`exp${i}`, 1));
      const pairs = compareAges(m, { ages, expired, countBits: bitsFor(k), prefix: 's' });
      const r = oldestAge(m, pairs);
      m.output('lambda', r.lambda);
      m.output('c', r.count);
      m.output('any_exp', r.anyExpired);
      const sim = new CompiledSim(m.build());
      const rng = new Rng(k * 10 + width);
      let want: { lambda: number; c: number; any: boolean } | null = null;
      const seen = new Set<number>();
      for (let t = 0; t < 600; t++) {
        // Small ranges make ties (c > 1) common; expiry is rare, as in a filter.
        const a = Array.from({ length: k }, () => Number(rng.bits(width)) % (rng.float() < 0.5 ? 3 : 2 ** width));
        const e = Array.from({ length: k }, () => rng.float() < 0.08);
        a.forEach((v, i) => sim.poke(`age${i}`, v));
        e.forEach((v, i) => sim.poke(`exp${i}`, v ? 1 : 0));
        if (want !== null) {
          expect({ lambda: Number(sim.peek('lambda')), c: Number(sim.peek('c')) }).toEqual({
            lambda: want.lambda,
            c: want.c,
          });
          expect(sim.peek('any_exp')).toBe(want.any ? 1n : 0n);
          seen.add(want.c);
        }
        want = { ...reference(a, e, width), any: e.some((x) => x) };
        sim.step();
      }
      // Ties were exercised: c took more than one value (with k = 1 it is always 1).
      if (k === 1) expect([...seen]).toEqual([1]);
      else expect(seen.size).toBeGreaterThan(1);
    });
  }
});
