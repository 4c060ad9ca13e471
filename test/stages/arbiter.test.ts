/**
 * The rotating priority order (src/stages/arbiter.ts) against a model of it: a rotation r,
 * 0 after reset and one more in each cycle with `advance`, the order r, r + 1, … (mod n). Every
 * pair's `before` and the first requester of random requests are checked each cycle, and with
 * every requester asking and `advance` in every other cycle each one comes first in turn.
 */
import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { rotatingPriority } from '../../src/stages/arbiter.js';
import { Rng } from '../../src/util/rng.js';
import { CompiledSim } from '../../sim/compiled.js';

function design(n: number) {
  const m = new ModuleBuilder(`arb${n}`);
  const advance = m.input('advance', 1);
  const req = Array.from({ length: n }, (_, i) => m.input(`req${i}`, 1));
  const p = rotatingPriority(m, { n, advance });
  p.first(req).forEach((f, i) => m.output(`first${i}`, f));
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (j !== i) m.output(`before_${j}_${i}`, p.before(j, i));
  return m.build();
}

/** The simulator at power-up: registers at their reset values (the order 0, 1, …, n − 1). */
function start(n: number): CompiledSim {
  return new CompiledSim(design(n));
}

/** The model: position of x in the order of rotation r. */
const pos = (x: number, r: number, n: number): number => (((x - r) % n) + n) % n;

describe('rotatingPriority', () => {
  for (const n of [1, 2, 3, 4, 8]) {
    it(`${n} requesters: before(j, i) and first(req) follow a rotation advanced on 'advance'`, () => {
      const sim = start(n);
      const rng = new Rng(n);
      let r = 0;
      let checked = 0;
      for (let t = 0; t < 600; t++) {
        const adv = rng.float() < 0.5 ? 1 : 0;
        const req = Array.from({ length: n }, () => (rng.float() < 0.4 ? 1 : 0));
        sim.poke('advance', adv);
        req.forEach((q, i) => sim.poke(`req${i}`, q));
        sim.settle();
        for (let i = 0; i < n; i++)
          for (let j = 0; j < n; j++)
            if (j !== i)
              expect(sim.peek(`before_${j}_${i}`), `t=${t} ${j}<${i}`).toBe(pos(j, r, n) < pos(i, r, n) ? 1n : 0n);
        const asking = req.flatMap((q, i) => (q ? [i] : []));
        const first = asking.length ? asking.reduce((a, b) => (pos(a, r, n) < pos(b, r, n) ? a : b)) : -1;
        for (let i = 0; i < n; i++) expect(sim.peek(`first${i}`), `t=${t} first${i}`).toBe(i === first ? 1n : 0n);
        if (first >= 0) checked++;
        sim.step();
        r = (r + adv) % n;
      }
      expect(checked).toBeGreaterThan(200);
    });
  }

  it('every requester comes first once in every n advancing cycles, however they fall', () => {
    const n = 4;
    const sim = start(n);
    for (let i = 0; i < n; i++) sim.poke(`req${i}`, 1);
    const firsts: number[] = [];
    for (let t = 0; t < 4 * n; t++) {
      const adv = t % 2;
      sim.poke('advance', adv);
      sim.settle();
      const f = Array.from({ length: n }, (_, i) => sim.peek(`first${i}`)).indexOf(1n);
      if (adv) firsts.push(f);
      sim.step();
    }
    expect(firsts).toEqual([0, 1, 2, 3, 0, 1, 2, 3]);
  });
});
