/**
 * The stream verifier's parts on their own: the session that runs given requests through a
 * design (experiments' sim engines), the scoreboard's order and resets, the ready randomiser's draws.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/resolve.js';
import { Rng } from '../../src/util/rng.js';
import { runRequests, StreamSession } from '../../src/verify/index.js';
import { ReadyRandomiser } from '../../src/verify/ready.js';
import { Scoreboard } from '../../src/verify/scoreboard.js';

describe('stream session', () => {
  it("answers a batch as the model does, in order, and keeps the design's state between runs", () => {
    const f = loadConfig('apbf_k4_l3');
    const model = f.model();
    const rng = new Rng(5);
    const reqs = Array.from({ length: 300 }, (_, i) => ({
      op: i % 3 === 2 ? 'query' : 'insert',
      key: BigInt(Math.floor(rng.float() * 200)),
    }));
    const s = new StreamSession(f.design(), f.protocol());
    const first = s.run(reqs.slice(0, 150));
    const second = s.run(reqs.slice(150));
    const want = reqs.map((r, i) => model.apply({ ...r, tag: i, fields: {} }).hit);
    expect([...first, ...second].map((r) => r.hit)).toEqual(want);
    expect(runRequests(f.design(), f.protocol(), reqs).map((r) => r.hit)).toEqual(want);
  });

  it('an op the protocol does not have is refused, not sent', () => {
    const f = loadConfig('apbf_k4_l3');
    expect(() => runRequests(f.design(), f.protocol(), [{ op: 'nope', key: 1n }])).toThrow("'nope' is not an op");
  });
});

describe('scoreboard', () => {
  it('answers the oldest outstanding first; a reset loses the rest', () => {
    const b = new Scoreboard<{ tag: number }>();
    for (let t = 0; t < 5000; t++) b.accept({ tag: t });
    for (let t = 0; t < 4500; t++) expect(b.answer()!.tag).toBe(t);
    expect(b.outstanding).toBe(500);
    expect(b.lose()).toBe(500);
    expect(b.answer()).toBeUndefined();
  });
});

describe('ready randomiser', () => {
  it('draws at rate 0 only when asked to (the lane driver), so each driver keeps its stimulus', () => {
    const a = new Rng(1);
    const b = new Rng(1);
    expect(new ReadyRandomiser(a, 0).ready()).toBe(true);
    expect(new ReadyRandomiser(b, 0, true).ready()).toBe(true);
    expect(a.float()).not.toBe(b.float());
    const r = new ReadyRandomiser(new Rng(2), 0.5);
    const lows = Array.from({ length: 2000 }, () => r.ready()).filter((x) => !x).length;
    expect(lows).toBeGreaterThan(800);
    expect(lows).toBeLessThan(1200);
  });
});
