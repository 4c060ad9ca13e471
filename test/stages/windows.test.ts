import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { consecutiveMatch } from '../../src/stages/windows.js';
import { Rng } from '../../src/util/rng.js';
import { CompiledSim } from '../../sim/compiled.js';

/** Brute force: window p holds when valid[p] and match[(p + i) mod P] for every i < k. */
function reference(match: boolean[], valid: bigint, k: number): bigint {
  const P = match.length;
  let out = 0n;
  for (let p = 0; p < P; p++) {
    let all = ((valid >> BigInt(p)) & 1n) === 1n;
    for (let i = 0; i < k; i++) all &&= match[(p + i) % P]!;
    if (all) out |= 1n << BigInt(p);
  }
  return out;
}

describe('consecutiveMatch (k consecutive segments in a valid window)', () => {
  for (const [P, k] of [
    [1, 1],
    [3, 1],
    [5, 2],
    [7, 4],
    [9, 3],
    [12, 12],
  ] as const) {
    it(`P = ${P}, k = ${k}: equals the brute force of the inputs one cycle earlier`, () => {
      const m = new ModuleBuilder('cm');
      const match = Array.from({ length: P }, (_, i) => m.input(`match${i}`, 1));
      const valid = m.input('valid', P);
      m.output('windows', consecutiveMatch(m, { match, valid, k, name: 'w' }));
      const sim = new CompiledSim(m.build());
      const rng = new Rng(P * 100 + k);
      let want: bigint | null = null;
      let hits = 0;
      for (let t = 0; t < 400; t++) {
        // Mostly-matching segments, so that windows of k consecutive matches do occur.
        const bits = Array.from({ length: P }, () => rng.float() < 0.8);
        const v = rng.bits(P);
        bits.forEach((b, i) => sim.poke(`match${i}`, b ? 1 : 0));
        sim.poke('valid', v);
        if (want !== null) {
          expect(sim.peek('windows')).toBe(want);
          if (want !== 0n) hits++;
        }
        want = reference(bits, v, k);
        sim.step();
      }
      expect(hits).toBeGreaterThan(10);
    });
  }
});
