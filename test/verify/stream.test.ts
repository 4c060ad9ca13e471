/**
 * The stream driver itself: it runs exactly the ops asked for and drains before comparing, it
 * stops (and says why) when a pipeline makes no progress, and it reports responses that differ
 * from the model's or that nobody asked for. The broken pipelines here are tiny designs of a
 * throwaway family written for the test.
 */
import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { Filter } from '../../src/families/filter.js';
import type { FilterConfig, FilterFamily, StreamModel } from '../../src/families/types.js';
import type { Design } from '../../src/ir/types.js';
import { drive } from '../../src/verify/stream.js';
import { loadConfig } from '../../src/config/resolve.js';

/**
 * A one-stage "filter": accepts when `ready`, answers `hit` = key bit 0 one cycle later (no
 * queue: a response is dropped when out_ready is low). `ready: false` never accepts; `answer:
 * false` never answers; `answer: 'always'` holds out_valid high, requests or not.
 */
function toy(opts: { ready: boolean; answer: boolean | 'always' }): Design {
  const m = new ModuleBuilder('toy');
  const inValid = m.input('in_valid', 1);
  m.input('in_op', 1);
  const key = m.input('in_key', 8);
  const tag = m.input('in_tag', 4);
  m.input('out_ready', 1);
  const ready = m.const(opts.ready ? 1 : 0, 1);
  const v = m.pipe(inValid.and(ready), 1, 'v');
  m.output('in_ready', ready);
  m.output('out_valid', opts.answer === 'always' ? m.const(1, 1) : opts.answer ? v : m.const(0, 1));
  m.output('out_tag', m.pipe(tag, 1, 't'));
  m.output('out_hit', m.pipe(key.bit(0), 1, 'h'));
  return m.build();
}

const config: FilterConfig = { name: 'toy', filter: 'toy', keyBits: 8, tagBits: 4, seed: 1, target: 'ice40-hx8k' };

function family(design: Design, answer: (key: bigint) => bigint): FilterFamily {
  const model = (): StreamModel => ({
    apply: (req) => ({ hit: answer(req.key) }),
    agingEvents: () => 0,
    compareMemories: () => ({ checked: 0, unit: 'words', mismatches: [], count: 0 }),
  });
  return {
    id: 'toy',
    title: 'toy',
    filters: ['toy'],
    schema: undefined as never,
    derive: () => config,
    parameters: () => ({}),
    describe: () => 'toy',
    build: () => design,
    protocol: () => ({
      ops: { query: 0 },
      semantics: { query: { queries: true } },
      request: [],
      response: [{ name: 'hit', port: 'out_hit', width: 1 }],
      latency: 1,
      queueDepth: 1,
      maxStallCycles: 10,
    }),
    model,
    fromSnapshot: model,
    control: () => ({}),
    verifyMix: { query: 1 },
    window: () => null,
    slack: () => 0,
    aging: null,
    analyze: () => undefined as never,
    software: () => undefined as never,
    sample: () => ({}),
    presetsDir: '',
    benchPresets: [],
    lanes: { kind: 'one-lane', why: 'a toy' },
  };
}

describe('stream driver', () => {
  it('a pipeline that answers correctly finishes every op', () => {
    const f = new Filter(
      family(toy({ ready: true, answer: true }), (k) => k & 1n),
      config,
    );
    const r = drive(f, { ops: 500, seed: 1 });
    expect(r.finished).toBe(true);
    expect(r.ops).toBe(500);
    expect(r.responses).toBe(500);
    expect(r.mismatchCount).toBe(0);
    // The driver idles `latency` cycles after the last response before it stops.
    expect(r.cycles).toBe(r.lastAccept + 1 + 1 + 1);
  });

  it('wrong answers are reported with the op and both responses', () => {
    const f = new Filter(
      family(toy({ ready: true, answer: true }), (k) => 1n - (k & 1n)),
      config,
    );
    const r = drive(f, { ops: 200, seed: 1 });
    expect(r.finished).toBe(true);
    expect(r.mismatchCount).toBe(200);
    expect(r.mismatches[0]).toMatchObject({ op: 0, kind: 'query' });
    expect(r.mismatches[0]!.expected).toMatch(/^tag 0 hit [01]$/);
  });

  it('a pipeline that never accepts stops with the reason, not finished', () => {
    const f = new Filter(
      family(toy({ ready: false, answer: true }), (k) => k & 1n),
      config,
    );
    const r = drive(f, { ops: 100, seed: 1, backpressure: 0.5 });
    expect(r.finished).toBe(false);
    expect(r.ops).toBe(0);
    expect(r.stopReason).toMatch(/no progress for \d+ cycles .*0 of 100 requests accepted, 0 responses/);
  });

  it('a pipeline that accepts but never answers stops with its requests outstanding', () => {
    const f = new Filter(
      family(toy({ ready: true, answer: false }), (k) => k & 1n),
      config,
    );
    const r = drive(f, { ops: 100, seed: 1 });
    expect(r.finished).toBe(false);
    expect(r.ops).toBe(100);
    expect(r.responses).toBe(0);
    expect(r.stopReason).toMatch(/100 outstanding/);
  });

  it('a pipeline that drops responses under back-pressure stops with requests outstanding', () => {
    // The toy has no queue: a response offered while out_ready is low is lost.
    const f = new Filter(
      family(toy({ ready: true, answer: true }), (k) => k & 1n),
      config,
    );
    const r = drive(f, { ops: 300, seed: 2, backpressure: 0.5 });
    expect(r.finished).toBe(false);
    expect(r.stopReason).toMatch(/outstanding/);
  });

  it('responses nobody asked for are mismatches', () => {
    const f = new Filter(
      family(toy({ ready: true, answer: 'always' }), (k) => k & 1n),
      config,
    );
    const r = drive(f, { ops: 50, seed: 1, idle: 0.5 });
    expect(r.mismatches.some((m) => m.kind === 'unexpected' && m.expected === 'no response')).toBe(true);
  });

  it('records packed stimulus and outputs of every cycle, drain included', () => {
    const f = loadConfig('apbf_k4_l3');
    const r = drive(f, { ops: 300, seed: 1, backpressure: 0.5, record: true });
    expect(r.finished).toBe(true);
    const L = r.sim.layout;
    expect(r.trace!.cycles).toBe(r.cycles);
    expect(r.trace!.stim.length).toBe(r.cycles * L.inputWords);
    expect(r.trace!.out.length).toBe(r.cycles * L.outputWords);
  });
});
