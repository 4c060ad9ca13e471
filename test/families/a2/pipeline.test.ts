/**
 * The A² pipeline in the compiled simulator (read-during-write collisions poisoned by the stream
 * driver): the flush bound of the config is exact, a build without write forwarding is caught,
 * the edges build and match the model, swaps never stall.
 */
import { describe, expect, it } from 'vitest';
import { buildA2 } from '../../../src/families/a2/rtl.js';
import { deriveA2, flushCycles } from '../../../src/families/a2/config.js';
import type { A2Derived } from '../../../src/families/a2/types.js';
import { uniformWorkload } from '../../../src/model/workloads.js';
import { driveConfig } from '../../helpers/families.js';

const cfg = (o: Record<string, unknown>): A2Derived =>
  deriveA2({ name: 't', filter: 'a2', keyBits: 16, seed: 3, ...o });

function run(c: A2Derived, o: { ops: number; universe: number; forwarding?: boolean; mix?: Record<string, number> }) {
  const r = driveConfig(c, {
    ops: o.ops,
    seed: 4,
    workload: uniformWorkload(c.keyBits, o.universe),
    mix: o.mix ?? { query: 2, insert: 2, testAndInsert: 3 },
    design: buildA2(c, { forwarding: o.forwarding ?? true }),
  });
  const mem = r.model.compareMemories((n, a) => r.sim.readMemory(n, a));
  return { r, mem };
}

describe('A² pipeline', () => {
  it('κ at the flush bound (depth + 11) is exact at one op per cycle; one below it reads unflushed words', () => {
    const c = cfg({ k: 2, bankBits: 64, wordBits: 4, kappa: 27 });
    expect(flushCycles(c.depth)).toBe(27);
    const ok = run(c, { ops: 20000, universe: 20000, mix: { testAndInsert: 1 } });
    expect(ok.r.agingEvents).toBeGreaterThan(500);
    expect(ok.r.stallCycles).toBe(0);
    expect(ok.r.mismatches).toEqual([]);
    expect(ok.mem.count).toBe(0);
    // The same pipeline with κ = 26 (past derive, which refuses it): the new active set still
    // holds stale words of its flush when the first ops read it.
    expect(() => cfg({ k: 2, bankBits: 64, wordBits: 4, kappa: 26 })).toThrow(/field 'wordBits'/);
    const tight = { ...c, kappa: 26, window: 26, slack: 25 };
    const bad = run(tight, { ops: 20000, universe: 20000, mix: { testAndInsert: 1 } });
    expect(bad.r.mismatchCount).toBeGreaterThan(0);
  });

  it('without write forwarding, same-word hazards give wrong answers (the verification is not vacuous)', () => {
    for (const c of [
      cfg({ k: 2, bankBits: 64, wordBits: 16, kappa: 15 }),
      cfg({ k: 3, bankBits: 32, wordBits: 4, kappa: 19 }),
    ]) {
      for (const universe of [8, 64]) {
        const good = run(c, { ops: 4000, universe });
        expect(good.r.mismatches).toEqual([]);
        expect(good.mem.count).toBe(0);
        const bad = run(c, { ops: 4000, universe, forwarding: false });
        expect(bad.r.mismatchCount).toBeGreaterThan(0);
      }
    }
  });

  it('edges: k = 1 on the smallest bank (2 bits, κ = 13), one-bit words; clear ops mid-stream', () => {
    for (const c of [
      cfg({ k: 1, bankBits: 2, kappa: 13 }),
      cfg({ k: 1, bankBits: 256, wordBits: 1, kappa: 300 }),
      cfg({ k: 5, bankBits: 128, kappa: 30 }),
    ]) {
      const { r, mem } = run(c, {
        ops: 6000,
        universe: 400,
        mix: { query: 2, insert: 2, testAndInsert: 3, clear: 0.003 },
      });
      expect(r.finished).toBe(true);
      expect(r.mismatches).toEqual([]);
      expect(mem.count).toBe(0);
    }
  });

  it('a swap every κ = 13 real inserts at one op per cycle: 0 stall cycles', () => {
    const c = cfg({ k: 2, bankBits: 32, wordBits: 16, kappa: 13 });
    const r = driveConfig(c, { ops: 5000, seed: 2, mix: { insert: 1 }, workload: uniformWorkload(16, 60000) });
    expect(r.agingEvents).toBeGreaterThan(300);
    expect(r.stallCycles).toBe(0);
    expect(r.lastAccept - r.firstAccept + 1).toBe(5000);
    expect(r.mismatches).toEqual([]);
  });
});
