/**
 * The set filters on N lanes (src/families/bloom/lanes.ts; src/lanes/ without aging): configs
 * refused with the field named, every lane shape of a grid of small configs built or refused, the
 * Verilog lint-clean, the latency on every lane, runs on the compiled simulator checked as the
 * APBF's are (test/lanes/lanes.test.ts: lane order, a gap-free linear order, every answer equal to
 * the sharded model on it, the block RAMs equal to the model's) with clears, merging and
 * back-pressure, one run on Verilator every port every cycle, and the sharded fp analysis against
 * a measurement.
 */
import { describe, expect, it } from 'vitest';
import { resolveLaneConfig } from '../../../src/config/lanes.js';
import { loadPreset } from '../../../src/config/resolve.js';
import { driveLanes, laneCosim } from '../../../src/verify/lanes.js';
import { measureShardedFp } from '../../../src/lanes/analysis.js';
import { laneQueueDepth } from '../../../src/lanes/rtl.js';
import type { BloomDerived } from '../../../src/families/bloom/types.js';
import {
  answersUnderAnotherShardHash,
  hotKeyOpsPerCycle,
  laneLatencies,
  laneShapeGrid,
  LANE_SHAPES,
} from '../../helpers/lanes.js';
import { lint } from '../../helpers/tools.js';

const partitioned = { ...(loadPreset('bloom_partitioned_k4_4k') as Record<string, unknown>), target: 'ecp5' };
const blocked = { ...(loadPreset('bloom_blocked_b512_4_16k') as Record<string, unknown>), target: 'ecp5' };
const basic = { ...(loadPreset('bloom_basic_k4_16k') as Record<string, unknown>), target: 'ecp5' };
// Small filters with 32-bit keys: keys repeat often and the bits fill, so answers are mixed.
const small = { name: 'small_part', filter: 'partitioned', k: 3, sliceBits: 256, keyBits: 32, seed: 5, target: 'ecp5' };
const smallBlocked = {
  name: 'small_blocked',
  filter: 'blocked',
  blockBits: 64,
  bitsPerBlock: 4,
  bits: 2048,
  keyBits: 32,
  seed: 6,
  target: 'ecp5',
};
const smallBasic = { name: 'small_basic', filter: 'basic', k: 2, bits: 1024, keyBits: 32, seed: 7, target: 'ecp5' };
// Clears now and then, so that answers after a clear (every shard swept) are checked too.
const CLEARS = { query: 4, insert: 4, testAndInsert: 2, clear: 0.003 };

describe('set filters on lanes: configs', () => {
  it.each([
    [{ ...small, lanes: 2, shards: 256 }, "field 'shards': must be at most 64"],
    [{ ...small, sliceBits: 64, lanes: 2, shards: 64 }, "field 'shards': 64 shards leave 64/64 bits per memory"],
    [{ ...smallBlocked, lanes: 4, shards: 32 }, "field 'shards': 32 shards leave 512/32 bits per memory"],
    [{ ...smallBasic, k: 2, bits: 8, lanes: 8, shards: 8 }, "field 'shards': 8 shards leave 8/8 bits"],
    [{ ...partitioned, target: 'ice40-hx8k', lanes: 4, shards: 16 }, "field 'shards': 16 shards of 4 block RAMs"],
  ])('%j is refused', (cfg, msg) => {
    expect(() => resolveLaneConfig(cfg, 'cfg')).toThrow(msg);
  });

  it('a shard keeps k (or b and B), takes 1/S of the bits, has no response queue, and its latency is one less', () => {
    for (const cfg of [partitioned, blocked, basic]) {
      const lf = resolveLaneConfig({ ...cfg, lanes: 4, shards: 8 }, 'cfg');
      const one = lf.base.config as BloomDerived;
      const s = lf.shard.config as BloomDerived;
      expect(s).toMatchObject({ filter: one.filter, k: one.k, blockBits: one.blockBits, columns: one.columns });
      expect(s.bits).toBe(one.bits / 8);
      expect(s.direct).toBe(true);
      expect(lf.shard.design().inputs.map((p) => p.name)).not.toContain('out_ready');
      expect(lf.shard.protocol().latency).toBe(lf.base.protocol().latency - 1);
      expect(lf.aging()).toBe('none');
      expect(lf.period()).toBeNull();
    }
  });

  it('every lane shape of accepted one-lane configs is accepted (the small ones built) or refused naming a field', () => {
    const configs: Record<string, unknown>[] = [];
    for (const bits of [8, 256, 1 << 16]) {
      for (const k of [1, 2, 7]) {
        configs.push({ name: 'g', filter: 'basic', k, bits, keyBits: 16, seed: 1, target: 'ecp5' });
        configs.push({ name: 'g', filter: 'partitioned', k, sliceBits: bits, keyBits: 16, seed: 1, target: 'ecp5' });
      }
      for (const [B, b] of [
        [4, 1],
        [64, 8],
      ])
        configs.push({ name: 'g', filter: 'blocked', blockBits: B, bitsPerBlock: b, bits, keyBits: 16, seed: 1 });
    }
    const { built, refused } = laneShapeGrid(configs, LANE_SHAPES, (c, s) => s <= 2 && (c.bits as number) <= 256);
    expect(built).toBeGreaterThan(20);
    expect(refused).toBeGreaterThan(5);
  });
});

describe('set filters on lanes: Verilog and latency', () => {
  it.each([
    ['partitioned', small, 2, 4],
    ['basic', smallBasic, 2, 2],
  ])('%s on %i lanes: verilator -Wall clean', async (_name, cfg, N, S) => {
    const r = await lint(resolveLaneConfig({ ...cfg, lanes: N, shards: S }, 'cfg').design());
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });

  it.each([
    ['partitioned', small, 4],
    ['blocked', smallBlocked, 2],
    ['basic (k = 2 cycles per op)', smallBasic, 2],
    ['basic, k = 8 (shard latency 15: 32-entry lane queues)', { ...smallBasic, k: 8 }, 2],
  ])('%s: out<i>_valid rises the latency after acceptance on every lane (the shard latency + 4)', (_n, cfg, N) => {
    const lf = resolveLaneConfig({ ...cfg, lanes: N, shards: N }, 'cfg');
    expect(lf.latency()).toBe(lf.shard.protocol().latency + 4);
    expect(laneLatencies(lf)).toEqual(Array.from({ length: N }, () => lf.latency()));
  });

  it("a lane's response queue holds every request in flight: 16 entries up to a shard latency of 12, then the next power of two", () => {
    expect([1, 12, 13, 15, 28, 29].map(laneQueueDepth)).toEqual([16, 16, 32, 32, 32, 64]);
    const queue = (k: number): unknown =>
      resolveLaneConfig({ ...smallBasic, k, lanes: 2, shards: 2 }, 'cfg').parameters().laneQueue;
    // The basic filter's shard answers in 7 + k cycles.
    expect([queue(5), queue(6)]).toEqual([16, 32]);
  });
});

describe('set filters on lanes: verified against the sharded model', () => {
  const cases: [string, number, number, number, boolean, Record<string, unknown>][] = [
    ['small partitioned', 2, 2, 0.2, false, small],
    ['small partitioned, k = 1', 4, 4, 0.1, false, { ...small, k: 1 }],
    ['small partitioned', 4, 4, 0.1, true, small],
    ['small blocked', 4, 8, 0.2, false, smallBlocked],
    ['small basic', 2, 4, 0.1, false, smallBasic],
    // Three cycles per op: the dispatcher's wait counts down from 2 (k = 2 takes one bit).
    ['small basic, k = 3', 4, 4, 0.1, true, { ...smallBasic, k: 3 }],
    // A 32-entry response queue per lane (its slot 5 bits, the write slot 8 columns × 4 rows).
    ['small basic, k = 8', 2, 8, 0.2, false, { ...smallBasic, k: 8 }],
    ['bloom_partitioned_k4_4k', 8, 8, 0.1, true, partitioned],
  ];
  it.each(cases)(
    '%s, %i lanes, %i shards, back-pressure %f, merge %s',
    (_n, N, S, bp, merge, cfg) => {
      const lf = resolveLaneConfig({ ...cfg, lanes: N, shards: S, merge }, 'cfg');
      const r = driveLanes(lf, { opsPerLane: Math.ceil(8000 / N), seed: 3, backpressure: bp, idle: 0.1, mix: CLEARS });
      expect(r.finished).toBe(true);
      expect(r.mismatches).toEqual([]);
      expect(r.responses).toBe(r.ops);
      expect(r.memory!.mismatches).toEqual([]);
      expect(r.memory!.checked).toBeGreaterThan(0);
    },
    300_000,
  );

  it('a hot key on every lane: merging runs it on every lane at once, without merging one per cycle', () => {
    const run = (merge: boolean) =>
      hotKeyOpsPerCycle(resolveLaneConfig({ ...partitioned, lanes: 4, shards: 8, merge }, 'cfg'));
    expect(run(false)).toBeLessThan(1.05);
    expect(run(true)).toBeGreaterThan(3.5);
  }, 300_000);

  it('the checks are not vacuous: the same shards with another shard hash disagree', () => {
    const lf = resolveLaneConfig({ ...small, lanes: 2, shards: 4 }, 'cfg');
    const r = driveLanes(lf, { opsPerLane: 3000, seed: 5, keepOrder: true, mix: { query: 1, insert: 1 } });
    expect(r.mismatches).toEqual([]);
    // The hardware's linear order replayed with the keys routed by another seed's shard hash.
    expect(answersUnderAnotherShardHash(lf, r.order!, ['hit'])).toBeGreaterThan(0);
  }, 300_000);

  it('Verilator: the same run gives the same outputs on every port every cycle', async () => {
    const lf = resolveLaneConfig({ ...small, lanes: 2, shards: 2, merge: true }, 'cfg');
    const r = driveLanes(lf, { opsPerLane: 2000, seed: 9, backpressure: 0.2, idle: 0.1, mix: CLEARS, record: true });
    expect(r.mismatches).toEqual([]);
    const cmp = await laneCosim(lf, r);
    expect(cmp.cycles).toBe(r.cycles);
    expect(cmp.mismatches).toEqual([]);
  }, 300_000);
});

describe('set filters on lanes: analysis', () => {
  // 64 shards of 1/64 of the bits: a shard takes about 44 of the 2839 keys, spread by sqrt(64/2839) = 15 %
  // (the blocked preset's 32 blocks: 16 shards of two).
  it.each([
    ['partitioned', 'above', 64, partitioned],
    ['basic', 'above', 64, basic],
    ['blocked', 'equal to', 16, blocked],
  ])(
    '%s: the sharded fp (analysis) matches the rate measured at capacity, %s the one-lane rate (%i shards)',
    (_n, rel, S, cfg) => {
      const lf = resolveLaneConfig({ ...cfg, lanes: 8, shards: S }, 'cfg');
      const a = lf.analyze().values;
      const line = lf.analyze().lines[0]!;
      if (rel === 'above') {
        expect(a.fp).toBeGreaterThan(a.fpOneLane * 1.02);
        expect(line).toMatch(/ % more\): a shard takes Binomial\(n, 1\/S\) of any n inserts into 1\/S of the memory$/);
      } else {
        expect(a.fp).toBe(a.fpOneLane);
        expect(line).toMatch(/^fp of 16 shards \S+, the same as one lane's$/);
      }
      // 20 filter instances (seeds), each filled to its capacity and probed 10 000 times.
      const ms = Array.from({ length: 20 }, (_, i) => measureShardedFp(lf, { queries: 10_000, seed: 10 + i }));
      const mean = (f: (m: (typeof ms)[number]) => number): number => ms.reduce((t, m) => t + f(m), 0) / ms.length;
      expect(Math.abs(mean((m) => m.sharded) / a.fp - 1)).toBeLessThan(0.05);
      expect(Math.abs(mean((m) => m.single) / a.fpOneLane - 1)).toBeLessThan(0.05);
    },
    300_000,
  );

  it('k = 1: sharding leaves the rate as it is (E[(1 − S/m)^N] = (1 − 1/m)^n over the binomial)', () => {
    const lf = resolveLaneConfig({ ...partitioned, k: 1, sliceBits: 16384, lanes: 8, shards: 64 }, 'cfg');
    const a = lf.analyze().values;
    expect(Math.abs(a.fp / a.fpOneLane - 1)).toBeLessThan(1e-9);
  });
});
