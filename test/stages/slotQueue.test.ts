/**
 * The lane wrapper's response queue and in-flight count (src/stages/slotQueue.ts), as the wrapper
 * uses them: a request granted while the count is not full is issued a cycle later (the count and
 * the slot counter step on the issue), its tag written into its slot as meta a cycle after that,
 * and its answer (the tag xor a constant) comes `latency` cycles after the issue, in order. A
 * consumer with random out_ready must get every granted request once, in order, with its meta and
 * its answer; a queue of `depth` never holds more than `depth` requests, and with out_ready high
 * a queue that covers the latency never stalls a request.
 */
import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { inFlightCount, slotQueue } from '../../src/stages/slotQueue.js';
import { Rng } from '../../src/util/rng.js';
import { CompiledSim } from '../../sim/compiled.js';

const XOR = 0x5a;

function design(depth: number, latency: number) {
  const m = new ModuleBuilder(`slotq_${depth}_${latency}`);
  const req = m.input('req', 1);
  const tag = m.input('tag', 8);
  const outReady = m.input('out_ready', 1);
  const count = inFlightCount(m, 'flight', depth);
  const grant = req.and(count.full.not());
  const issued = m.pipe(grant, 1, 'issued');
  const tagQ = m.pipe(tag, 1, 'issued_tag', { reset: null });
  const slot = m.reg('slot', Math.log2(depth));
  slot.next(m.mux(issued, slot.add(1), slot));
  const meta = {
    we: m.pipe(issued, 1, 'meta_we'),
    slot: m.pipe(slot, 1, 'meta_slot', { reset: null }),
    data: m.pipe(tagQ, 1, 'meta_data', { reset: null }),
  };
  const answer = {
    valid: m.pipe(issued, latency, 'ans_valid'),
    data: m.pipe(tagQ.xor(XOR), latency, 'ans_data', { reset: null }),
  };
  const q = slotQueue(m, 'q', depth, meta, answer, outReady);
  count.step(issued, q.pop);
  m.output('grant', grant);
  m.output('out_valid', q.outValid);
  m.output('out_meta', q.head.slice(15, 8));
  m.output('out_answer', q.head.slice(7, 0));
  return m.build();
}

function drive(depth: number, latency: number, pReq: number, pReady: number, seed: number) {
  const sim = new CompiledSim(design(depth, latency));
  sim.poke('req', 0);
  sim.poke('out_ready', 0);
  sim.poke('rst', 1);
  sim.step();
  sim.poke('rst', 0);
  const rng = new Rng(seed);
  const sent: number[] = [];
  const got: { meta: number; answer: number }[] = [];
  let next = 0;
  let stalls = 0;
  let held = 0;
  let maxHeld = 0;
  for (let t = 0; t < 3000; t++) {
    const req = rng.float() < pReq;
    const ready = rng.float() < pReady;
    sim.poke('req', req ? 1 : 0);
    sim.poke('tag', next & 255);
    sim.poke('out_ready', ready ? 1 : 0);
    sim.settle();
    if (req && sim.peek('grant') === 1n) {
      sent.push(next++ & 255);
      held++;
    } else if (req) stalls++;
    if (sim.peek('out_valid') === 1n) {
      // The meta is 0 while out_valid is low; shown only with it.
      if (ready) {
        got.push({ meta: Number(sim.peek('out_meta')), answer: Number(sim.peek('out_answer')) });
        held--;
      }
    } else expect(sim.peek('out_meta')).toBe(0n);
    maxHeld = Math.max(maxHeld, held);
    sim.step();
  }
  sim.poke('req', 0);
  sim.poke('out_ready', 1);
  for (let t = 0; t < latency + depth + 4; t++) {
    sim.settle();
    if (sim.peek('out_valid') === 1n)
      got.push({ meta: Number(sim.peek('out_meta')), answer: Number(sim.peek('out_answer')) });
    sim.step();
  }
  return { sent, got, stalls, maxHeld };
}

describe('slotQueue + inFlightCount', () => {
  for (const [depth, latency] of [
    [4, 2],
    [16, 3],
    [16, 12],
    [32, 20],
  ] as const) {
    it(`depth ${depth}, latency ${latency}: every granted request answered once, in order, with its meta`, () => {
      for (const [pReq, pReady, seed] of [
        [0.9, 0.3, 1],
        [0.5, 0.6, 2],
        [1, 0.05, 3],
      ] as const) {
        const r = drive(depth, latency, pReq, pReady, seed);
        expect(r.sent.length).toBeGreaterThan(100);
        expect(r.got).toEqual(r.sent.map((tag) => ({ meta: tag, answer: tag ^ XOR })));
        // Granted and not yet popped: never more than the queue's slots.
        expect(r.maxHeld).toBeLessThanOrEqual(depth);
        // A consumer seldom ready holds the grants back.
        if (pReady < 0.1) expect(r.stalls).toBeGreaterThan(100);
      }
    });
  }

  it('with out_ready high, a queue of at least latency + 4 never stalls a request', () => {
    for (const [depth, latency] of [
      [16, 3],
      [16, 12],
      [32, 20],
    ] as const) {
      const r = drive(depth, latency, 1, 1, 7);
      expect(r.stalls).toBe(0);
      expect(r.got.length).toBe(r.sent.length);
    }
  });
});
