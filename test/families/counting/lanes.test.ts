/**
 * Counting and spectral filters on N lanes (src/families/counting/lanes.ts; src/lanes/ without
 * aging): configs refused with the field named, the shard's derived config (1/S of the counters,
 * a direct pipeline one cycle shorter), every lane shape of a grid of small configs built or
 * refused, the Verilog lint-clean, the latency on every lane, runs on the compiled simulator
 * checked as the set filters' are (test/families/bloom/lanes.test.ts: lane order, a gap-free
 * linear order, every answer — count and flags — equal to the sharded model on it, the block RAMs
 * equal to the model's) with removes, clears and back-pressure for MS, MI and RM, one run on
 * Verilator every port every cycle, the throughput of four lanes, and the sharded fp analysis
 * against a measurement.
 */
import { describe, expect, it } from 'vitest';
import { type LaneFilter } from '../../../src/lanes/filter.js';
import { resolveLaneConfig } from '../../../src/config/lanes.js';
import { loadPreset } from '../../../src/config/resolve.js';
import { latencyOf } from '../../../src/families/counting/params.js';
import type { CountingDerived } from '../../../src/families/counting/types.js';
import { driveLanes, laneCosim, type LaneDriveResult } from '../../../src/verify/lanes.js';
import { measureShardedFp } from '../../../src/lanes/analysis.js';
import { answersUnderAnotherShardHash, laneLatencies, laneShapeGrid } from '../../helpers/lanes.js';
import { lint } from '../../helpers/tools.js';

const preset = (name: string): Record<string, unknown> => ({
  ...(loadPreset(name) as Record<string, unknown>),
  target: 'ecp5',
});
const counting = preset('counting_k4_w4');
// Small filters of 2-bit counters with 32-bit keys: keys repeat often, counters saturate (at 3)
// and removes of absent keys underflow, so every response field takes both values.
const small = {
  name: 'small_ms',
  filter: 'counting',
  k: 2,
  counterBits: 2,
  cellsPerBank: 64,
  keyBits: 32,
  seed: 5,
  target: 'ecp5',
};
const smallMi = { ...small, name: 'small_mi', filter: 'spectral', algorithm: 'mi', seed: 6 };
const smallRm = { ...small, name: 'small_rm', filter: 'spectral', algorithm: 'rm', k: 3, seed: 7 };
// Removes (where the config has them) and clears now and then among the queries and inserts.
const MIX = { query: 3, insert: 4, testAndInsert: 2, remove: 3, clear: 0.01 };
const MIX_NO_REMOVE = { query: 3, insert: 4, testAndInsert: 2, clear: 0.01 };

const lane = (cfg: Record<string, unknown>, lanes: number, shards: number, more: Record<string, unknown> = {}) =>
  resolveLaneConfig({ ...cfg, lanes, shards, ...more }, 'cfg');

describe('counting filters on lanes: configs', () => {
  it.each([
    [{ ...small, lanes: 2, shards: 128 }, "field 'shards': must be at most 64"],
    [
      { ...small, cellsPerBank: 16, lanes: 4, shards: 16 },
      "field 'shards': 16 shards leave 16/16 counters per bank of the ms filter in a shard; a shard needs at least 2 (use shards <= 8 or a larger filter)",
    ],
    [
      { ...smallRm, secondaryCellsPerBank: 16, lanes: 2, shards: 16 },
      "field 'shards': 16 shards leave 16/16 counters per secondary bank of the rm filter in a shard",
    ],
    [{ ...small, lanes: 2, shards: 2, merge: true }, "field 'merge': filter 'counting' does not merge identical keys"],
    [
      { ...smallRm, lanes: 4, shards: 4, merge: true },
      "field 'merge': filter 'spectral' does not merge identical keys",
    ],
    [{ ...counting, target: 'ice40-hx8k', lanes: 4, shards: 16 }, "field 'shards': 16 shards of 4 block RAMs"],
  ])('%j is refused', (cfg, msg) => {
    expect(() => resolveLaneConfig(cfg, 'cfg')).toThrow(msg);
  });

  it('a shard keeps the algorithm, k, w and remove, takes 1/S of the counters, has no response queue, and its latency is one less', () => {
    for (const name of ['counting_k4_w4', 'spectral_mi_k4_w4', 'spectral_rm_k4_w4']) {
      const lf = lane(preset(name), 4, 8);
      const one = lf.base.config as CountingDerived;
      const s = lf.shard.config as CountingDerived;
      expect(s).toMatchObject({
        filter: one.filter,
        algorithm: one.algorithm,
        k: one.k,
        counterBits: one.counterBits,
        remove: one.remove,
        lanes: one.lanes,
        seed: one.seed,
        keyBits: one.keyBits,
        direct: true,
      });
      expect(s.cellsPerBank).toBe(one.cellsPerBank / 8);
      expect(s.secondaryCellsPerBank).toBe(one.secondaryCellsPerBank / 8);
      expect(s.items).toBe(Math.ceil(one.items / 8));
      expect(lf.shard.design().inputs.map((p) => p.name)).not.toContain('out_ready');
      expect(lf.base.design().inputs.map((p) => p.name)).toContain('out_ready');
      expect(lf.base.protocol().latency).toBe(latencyOf(one.algorithm));
      expect(lf.shard.protocol().latency).toBe(lf.base.protocol().latency - 1);
      expect(lf.shard.protocol().queueDepth).toBe(0);
      expect(lf.aging()).toBe('none');
      expect(lf.period()).toBeNull();
    }
  });

  it('a shard with fewer than two words of counters per bank packs fewer counters per word (the same bits)', () => {
    // 64 counters of 2 bits, 8 per 16-bit word; 16 shards leave 4 per bank: two words of 2.
    const s = lane(small, 4, 16).shard.config as CountingDerived;
    expect(s).toMatchObject({ cellsPerBank: 4, lanes: 2, wordBits: 4, depth: 2 });
    expect(lane(small, 8, 32).shard.config).toMatchObject({ cellsPerBank: 2, lanes: 1, depth: 2 });
  });

  it('every lane shape of accepted one-lane configs is accepted (the small ones built) or refused naming a field', () => {
    const configs: Record<string, unknown>[] = [];
    for (const cells of [2, 16, 1 << 12])
      for (const k of [1, 2])
        for (const counterBits of [1, 2])
          for (const alg of [
            { filter: 'counting' },
            { filter: 'spectral', algorithm: 'mi' },
            { filter: 'spectral', algorithm: 'rm' },
          ])
            configs.push({
              name: 'g',
              ...alg,
              k,
              counterBits,
              cellsPerBank: cells,
              keyBits: 16,
              seed: 1,
              target: 'ecp5',
            });
    const shapes = [
      [1, 1],
      [2, 2],
      [2, 8],
      [4, 16],
      [8, 64],
    ] as const;
    const { built, refused } = laneShapeGrid(
      configs,
      shapes,
      (c, s) => s === 2 && c.k === 1 && (c.cellsPerBank as number) <= 16,
    );
    // 18 valid one-lane configs (16 counters per bank hold two words only at w = 2): 16 counters
    // cannot go 16 or 64 ways (6 configs × 2 shapes refused), the rest is accepted.
    expect(built).toBeGreaterThanOrEqual(78);
    expect(refused).toBeGreaterThanOrEqual(12);
  });
});

describe('counting filters on lanes: Verilog and latency', () => {
  it.each([
    ['MS', 2, 4, small],
    ['RM', 2, 2, smallRm],
  ])('%s on %i lanes, %i shards: verilator -Wall clean', async (_name, N, S, cfg) => {
    const r = await lint(lane(cfg, N, S).design());
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });

  it.each([
    ['MS, k = 1', { ...small, k: 1 }, 4],
    ['RM', smallRm, 2],
  ])('%s: out<i>_valid rises the latency after acceptance on every lane (the shard latency + 4)', (_n, cfg, N) => {
    const lf = lane(cfg, N, N);
    expect(lf.latency()).toBe(lf.shard.protocol().latency + 4);
    // The shard answers without its response queue: one cycle less than the one-lane pipeline.
    expect(lf.latency()).toBe(lf.base.protocol().latency + 3);
    expect(laneLatencies(lf)).toEqual(Array.from({ length: N }, () => lf.latency()));
  });
});

/** The run's answers were checked, and exercised every response field and the removes. */
function expectVerified(lf: LaneFilter, r: LaneDriveResult): void {
  expect(r.finished).toBe(true);
  expect(r.mismatches).toEqual([]);
  expect(r.responses).toBe(r.ops);
  expect(r.memory!.mismatches).toEqual([]);
  expect(r.memory!.checked).toBeGreaterThan(0);
  const order = r.order!;
  const seen = (f: (a: (typeof order)[number]) => boolean): number => order.filter(f).length;
  expect(seen((a) => a.got.hit === 1n)).toBeGreaterThan(0);
  expect(seen((a) => a.req.op === 'query' && a.got.hit === 0n)).toBeGreaterThan(0);
  const max = 2n ** BigInt((lf.base.config as CountingDerived).counterBits) - 1n;
  expect(seen((a) => a.got.count === max)).toBeGreaterThan(0);
  expect(seen((a) => a.got.overflow === 1n)).toBeGreaterThan(0);
  expect(seen((a) => a.req.op === 'clear')).toBeGreaterThan(0);
  if ((lf.base.config as CountingDerived).remove) {
    expect(seen((a) => a.req.op === 'remove')).toBeGreaterThan(100);
    expect(seen((a) => a.got.underflow === 1n)).toBeGreaterThan(0);
  }
}

describe('counting filters on lanes: verified against the sharded model', () => {
  const cases: [string, number, number, number, Record<string, unknown>, Record<string, number>][] = [
    ['small MS', 2, 4, 0.2, small, MIX],
    ['small MS, k = 1, w = 1', 4, 4, 0.1, { ...small, k: 1, counterBits: 1 }, MIX],
    ['small MI (no remove), two counters per word', 4, 16, 0.2, smallMi, MIX_NO_REMOVE],
    ['small RM', 2, 4, 0.2, smallRm, MIX],
    ['small MS', 8, 8, 0.1, small, MIX],
  ];
  it.each(cases)(
    '%s, %i lanes, %i shards, back-pressure %f',
    (_n, N, S, bp, cfg, mix) => {
      const lf = lane(cfg, N, S);
      const r = driveLanes(lf, {
        opsPerLane: Math.ceil(8000 / N),
        seed: 3,
        backpressure: bp,
        idle: 0.1,
        mix,
        keepOrder: true,
      });
      expectVerified(lf, r);
    },
    300_000,
  );

  it('the checks are not vacuous: the same shards with another shard hash disagree', () => {
    const lf = lane(small, 2, 4);
    const r = driveLanes(lf, { opsPerLane: 2000, seed: 5, keepOrder: true, mix: MIX });
    expect(r.mismatches).toEqual([]);
    // The hardware's linear order replayed with the keys routed by another seed's shard hash.
    expect(answersUnderAnotherShardHash(lf, r.order!, ['count'])).toBeGreaterThan(0);
  }, 300_000);

  it('Verilator: the same run gives the same outputs on every port every cycle', async () => {
    const lf = lane(smallRm, 2, 2);
    const r = driveLanes(lf, { opsPerLane: 1500, seed: 9, backpressure: 0.2, idle: 0.1, mix: MIX, record: true });
    expect(r.mismatches).toEqual([]);
    const cmp = await laneCosim(lf, r);
    expect(cmp.cycles).toBe(r.cycles);
    expect(cmp.mismatches).toEqual([]);
  }, 300_000);

  // The shard answers 12 cycles after its request: 15 requests in flight between cycles, 14 of them
  // counted (the count follows the issue stage and assumes this cycle's grant), exactly what a
  // 16-entry queue grants at; a count one more cautious would make the lane wait.
  it('RM, one lane offered a request every cycle, its consumer ready: never waits on its 16-entry response queue', () => {
    const lf = lane(smallRm, 1, 1);
    expect(lf.shard.protocol().latency).toBe(12);
    expect(lf.parameters().laneQueue).toBe(16);
    const r = driveLanes(lf, { opsPerLane: 2000, seed: 4, mix: { query: 1, insert: 1 }, throughputOnly: true });
    expect(r.opsPerCycle).toBeGreaterThan(0.995);
  }, 300_000);

  it('counting_k4_w4: four lanes on uniform keys execute more than 2.5 ops per cycle with 8 shards', () => {
    const lf = lane(counting, 4, 8);
    const r = driveLanes(lf, { opsPerLane: 3000, seed: 2, mix: { query: 1, insert: 1 }, throughputOnly: true });
    expect(r.opsPerCycle).toBeGreaterThan(2.5);
  }, 300_000);
});

describe('counting filters on lanes: analysis', () => {
  // 64 shards of 1/64 of the counters: a shard takes about 11 of the 709 keys, spread by
  // sqrt(64/709) = 30 %.
  it.each([
    ['counting (MS) k = 4', 'above', 64, counting],
    ['counting (MS) k = 1', 'equal to', 64, { ...counting, k: 1 }],
  ])(
    '%s: the sharded fp (analysis) matches the rate measured at capacity, %s the one-lane rate (%i shards)',
    (_n, rel, S, cfg) => {
      const lf = lane(cfg, 8, S);
      const a = lf.analyze().values;
      if (rel === 'above') expect(a.fp).toBeGreaterThan(a.fpOneLane * 1.02);
      else expect(Math.abs(a.fp / a.fpOneLane - 1)).toBeLessThan(1e-9);
      // 20 filter instances (seeds), each filled to its capacity and probed 5 000 times.
      const ms = Array.from({ length: 20 }, (_, i) => measureShardedFp(lf, { queries: 5_000, seed: 10 + i }));
      const mean = (f: (m: (typeof ms)[number]) => number): number => ms.reduce((t, m) => t + f(m), 0) / ms.length;
      expect(Math.abs(mean((m) => m.sharded) / a.fp - 1)).toBeLessThan(0.05);
      expect(Math.abs(mean((m) => m.single) / a.fpOneLane - 1)).toBeLessThan(0.05);
    },
    300_000,
  );

  it('MI: the sharded analysis is an upper bound of the measured rate, as on one lane', () => {
    const lf = lane(preset('spectral_mi_k4_w4'), 8, 64);
    const a = lf.analyze().values;
    const ms = Array.from({ length: 10 }, (_, i) => measureShardedFp(lf, { queries: 5_000, seed: 40 + i }));
    const sharded = ms.reduce((t, m) => t + m.sharded, 0) / ms.length;
    expect(sharded).toBeLessThan(a.fp);
    expect(sharded).toBeGreaterThan(0);
  }, 300_000);
});
