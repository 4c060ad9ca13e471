import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { occupancy, responseQueue } from '../../src/stages/responseQueue.js';
import { Rng } from '../../src/util/rng.js';
import { CompiledSim } from '../../sim/compiled.js';

/**
 * A pipeline of `latency` cycles in front of a response queue of `depth` entries, in_ready a
 * register closed by the occupancy count (as the TBF generator does it).
 */
function design(depth: number, latency: number, oneHotWrite: boolean) {
  const m = new ModuleBuilder('rq');
  const inValid = m.input('in_valid', 1);
  const inTag = m.input('in_tag', 8);
  const outReady = m.input('out_ready', 1);
  const ready = m.reg('ready_q', 1);
  const fire = inValid.and(ready);
  const occ = occupancy(m, { capacity: depth });
  const push = m.pipe(fire, latency, 'v');
  const tag = m.pipe(inTag, latency, 'tag', { reset: null });
  const rq = responseQueue(m, depth, push, [tag, tag.slice(0, 0)], outReady, { oneHotWrite });
  occ.step(fire, rq.pop);
  ready.next(occ.fullAfter(fire).not());
  m.output('in_ready', ready);
  m.output('out_valid', rq.outValid);
  m.output('out_tag', rq.head[0]!);
  m.output('out_bit0', rq.head[1]!);
  return m.build();
}

function drive(depth: number, latency: number, oneHotWrite: boolean, pValid: number, pReady: number, seed: number) {
  const sim = new CompiledSim(design(depth, latency, oneHotWrite));
  const rng = new Rng(seed);
  const sent: number[] = [];
  const got: number[] = [];
  let next = 0;
  let maxHeld = 0;
  const pushes: number[] = [];
  let stalls = 0;
  for (let t = 0; t < 4000; t++) {
    const valid = rng.float() < pValid;
    const outReady = rng.float() < pReady;
    sim.poke('in_valid', valid ? 1 : 0);
    sim.poke('in_tag', next & 255);
    sim.poke('out_ready', outReady ? 1 : 0);
    const inReady = sim.peek('in_ready') === 1n;
    if (valid && inReady) sent.push(next++ & 255);
    if (valid && !inReady && t > 0) stalls++; // in_ready is a register that powers up low
    pushes.push(valid && inReady ? 1 : 0);
    if (sim.peek('out_valid') === 1n && outReady) {
      const tag = Number(sim.peek('out_tag'));
      expect(Number(sim.peek('out_bit0'))).toBe(tag & 1);
      got.push(tag);
    }
    // Entries held after this cycle's edge: pushed (accepted `latency` cycles ago) minus popped.
    const pushed = pushes.slice(0, Math.max(0, pushes.length - latency)).reduce((a, b) => a + b, 0);
    maxHeld = Math.max(maxHeld, pushed - got.length);
    sim.step();
  }
  sim.poke('in_valid', 0);
  sim.poke('out_ready', 1);
  for (let t = 0; t < latency + depth + 2; t++) {
    if (sim.peek('out_valid') === 1n) got.push(Number(sim.peek('out_tag')));
    sim.step();
  }
  return { sent, got, maxHeld, stalls };
}

describe('responseQueue + occupancy', () => {
  for (const oneHotWrite of [false, true]) {
    const ptr = oneHotWrite ? 'one-hot' : 'binary';
    it(`${ptr} write pointer: every accepted request answered once, in order, the queue never over its depth`, () => {
      for (const [pValid, pReady, seed] of [
        [0.9, 0.3, 1],
        [0.5, 0.5, 2],
        [1, 0.05, 3],
      ] as const) {
        const r = drive(8, 5, oneHotWrite, pValid, pReady, seed);
        expect(r.got).toEqual(r.sent);
        expect(r.sent.length).toBeGreaterThan(200);
        expect(r.maxHeld).toBeLessThanOrEqual(8);
        // A slow consumer filled it: the bound was reached, not just kept by luck.
        if (pReady < 0.5) expect(r.maxHeld).toBeGreaterThanOrEqual(7);
      }
    });

    it(`${ptr}: a consumer that is always ready never stalls the producer (capacity covers the latency)`, () => {
      const r = drive(16, 10, oneHotWrite, 1, 1, 4);
      expect(r.stalls).toBe(0);
      expect(r.got).toEqual(r.sent);
    });
  }
});
