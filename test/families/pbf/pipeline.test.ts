/**
 * The PBF-2 and SBF pipelines beyond the conformance suite: inserts flow at one per cycle, a
 * PBF-2 query takes two cycles and an SBF query |q| cycles (rtl.ts), the forwarding is needed
 * (a build without it fails the model comparison under poisoned read-during-write collisions),
 * and refused requests come back with out_err.
 */
import { describe, expect, it } from 'vitest';
import { presetFilters } from '../../../src/config/resolve.js';
import { buildPbf } from '../../../src/families/pbf/rtl.js';
import type { PbfDerived } from '../../../src/families/pbf/types.js';
import { CompiledSim } from '../../../sim/compiled.js';
import { drive } from '../../../src/verify/stream.js';
import { uniformWorkload } from '../../../src/model/workloads.js';

const byName = (n: string) => presetFilters().find((f) => f.name === n)!;

describe('pbf pipelines', () => {
  it('inserts: one per cycle, 0 stall cycles (PBF-2 and SBF)', () => {
    for (const name of ['pbf2_t256_k3_2k', 'sbf_t1024_k4_8k']) {
      const r = drive(byName(name), { ops: 3000, seed: 2, mix: { insert: 1 } });
      expect(r.finished).toBe(true);
      expect(r.mismatches).toEqual([]);
      expect(r.stallCycles).toBe(0);
      expect(r.lastAccept - r.firstAccept + 1).toBe(3000);
    }
  });

  it('PBF-2 queries: two cycles each whatever |q| (the left and right micro-ops; a refused one too)', () => {
    const r = drive(byName('pbf2_t1024_k2_4k'), { ops: 2000, seed: 3, mix: { query: 1 } });
    expect(r.finished).toBe(true);
    expect(r.mismatches).toEqual([]);
    // The skid takes the first two requests at once, then one every two cycles.
    const span = r.lastAccept - r.firstAccept + 1;
    expect(span).toBeGreaterThanOrEqual(2 * 2000 - 3);
    expect(span).toBeLessThanOrEqual(2 * 2000 - 1);
  });

  it('SBF queries: |q| cycles each (one micro-op per instant of the range), PBF-2 two', () => {
    const rate = (name: string, s: number, e: number): number => {
      const d = byName(name).design();
      const sim = new CompiledSim(d);
      for (const q of d.inputs) sim.poke(q.name, 0n);
      sim.poke('out_ready', 1n);
      while (sim.peek('in_ready') !== 1n) sim.step();
      sim.poke('in_valid', 1n);
      sim.poke('in_op', 0n);
      sim.poke('in_from', BigInt(s));
      sim.poke('in_time', BigInt(e));
      let accepted = 0;
      for (let cycle = 0; cycle < 2000; cycle++) {
        if (sim.peek('in_ready') === 1n) accepted++;
        sim.step();
      }
      return accepted;
    };
    // 2000 cycles: 2000/|q| queries (+ the two the skid takes in at the start).
    expect(rate('sbf_t1024_k4_8k', 10, 19)).toBe(200 + 2);
    expect(rate('sbf_t1024_k4_8k', 7, 7)).toBe(2000);
    const p2 = rate('pbf2_t1024_k2_4k', 5, 1000);
    expect(p2).toBeGreaterThanOrEqual(1000);
    expect(p2).toBeLessThanOrEqual(1002);
  });

  it('a build without write forwarding fails the model comparison (poisoned collisions)', () => {
    for (const name of ['pbf2_t256_k3_2k', 'sbf_t1024_k4_8k']) {
      const f = byName(name);
      const r = drive(f, {
        ops: 3000,
        seed: 31,
        backpressure: 0.3,
        design: buildPbf(f.config as PbfDerived, { forwarding: false }),
        workload: uniformWorkload(32, 4), // few keys: back-to-back ops on one word
      });
      expect(r.mismatchCount, name).toBeGreaterThan(0);
    }
  });

  it('refused requests: out_err for an insert earlier than the last one and for s > e; the stream equals the model', () => {
    const f = byName('pbf2_t256_k3_2k');
    const r = drive(f, { ops: 3000, seed: 8, backpressure: 0.2 });
    expect(r.finished).toBe(true);
    expect(r.mismatches).toEqual([]);
    // The model's answers in the same stream include both kinds of refusal.
    const m = f.model();
    let insertErr = 0;
    let queryErr = 0;
    m.apply({ op: 'insert', key: 1n, tag: 0, fields: { time: 9n, from: 0n } });
    if (m.apply({ op: 'insert', key: 2n, tag: 0, fields: { time: 8n, from: 0n } }).err === 1n) insertErr++;
    if (m.apply({ op: 'query', key: 1n, tag: 0, fields: { time: 8n, from: 9n } }).err === 1n) queryErr++;
    expect([insertErr, queryErr]).toEqual([1, 1]);
    expect(m.apply({ op: 'query', key: 1n, tag: 0, fields: { time: 9n, from: 0n } })).toEqual({ hit: 1n, err: 0n });
  });
});
