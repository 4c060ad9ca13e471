/**
 * Bitwise Bloom filters on N lanes (src/families/bitwise/lanes.ts; src/lanes/ without aging):
 * configs refused with the field named, the shard's derived config (1/S of every level's counters,
 * a direct pipeline one cycle shorter), every lane shape of a grid of small configs built or
 * refused, the Verilog lint-clean, the latency on every lane, runs on the compiled simulator
 * checked against the sharded model (lane order, a gap-free linear order, every answer — hit,
 * count, sat — equal to the sharded model on it, the block RAMs equal to the model's) with adds
 * that carry and saturate, clears and back-pressure, one run on Verilator every port every cycle,
 * the throughput of four lanes, and the sharded fp analysis against a measurement.
 */
import { describe, expect, it } from 'vitest';
import { type LaneFilter } from '../../../src/lanes/filter.js';
import { resolveLaneConfig } from '../../../src/config/lanes.js';
import { loadPreset } from '../../../src/config/resolve.js';
import { bitwiseLatency } from '../../../src/families/bitwise/params.js';
import type { BitwiseAnalysis } from '../../../src/families/bitwise/summary.js';
import type { BitwiseDerived } from '../../../src/families/bitwise/types.js';
import { driveLanes, laneCosim, type LaneDriveResult } from '../../../src/verify/lanes.js';
import { measureShardedFp } from '../../../src/lanes/analysis.js';
import { answersUnderAnotherShardHash, laneLatencies, laneShapeGrid } from '../../helpers/lanes.js';
import { lint } from '../../helpers/tools.js';

const preset = (name: string): Record<string, unknown> => ({
  ...(loadPreset(name) as Record<string, unknown>),
  target: 'ecp5',
});
const w448 = preset('bitwise_l3_w448');
// Small filters with 32-bit keys over a pool of 4 × n keys: keys repeat often, so adds carry into
// the next level (a count reaches 2^{w_0}), zero shared counters and saturate, and every response
// field takes both values. Counts up to 15.
const small = {
  name: 'small_bw',
  filter: 'bitwise',
  levels: [
    { cells: 64, width: 2, k: 2 },
    { cells: 32, width: 2, k: 2 },
  ],
  keyBits: 32,
  seed: 5,
  target: 'ecp5',
};
// The edges: one level with k = 1 (no minimum tree: the shortest pipeline), the manual's 1-bit
// counters over three levels (k = 3, 3, 1), and k = 1 at every level.
const oneLevel = { ...small, name: 'one_level', levels: [{ cells: 32, width: 3, k: 1 }], seed: 6 };
const w1 = {
  ...small,
  name: 'w1',
  levels: [
    { cells: 96, width: 1, k: 3 },
    { cells: 48, width: 1, k: 3 },
    { cells: 16, width: 1, k: 1 },
  ],
  seed: 7,
};
const k1 = {
  ...small,
  name: 'k1',
  levels: [
    { cells: 32, width: 2, k: 1 },
    { cells: 16, width: 2, k: 1 },
  ],
  seed: 8,
};
// Deep banks (16 words of 32 one-bit counters in a shard of two): a clear's sweep outlasts the
// dispatcher's hold after it, so the shard's in_ready must stay low for it. Counts up to 3.
const deep = {
  ...small,
  name: 'deep',
  levels: [
    { cells: 2048, width: 1, k: 2 },
    { cells: 1024, width: 1, k: 2 },
  ],
  seed: 9,
};
// Queries, adds and test-and-adds, and a clear now and then.
const MIX = { query: 3, insert: 4, testAndInsert: 2, clear: 0.01 };

const lane = (cfg: Record<string, unknown>, lanes: number, shards: number, more: Record<string, unknown> = {}) =>
  resolveLaneConfig({ ...cfg, lanes, shards, ...more }, 'cfg');

describe('bitwise filters on lanes: configs', () => {
  it.each([
    [{ ...small, lanes: 2, shards: 128 }, "field 'shards': must be at most 64"],
    [
      { ...small, lanes: 4, shards: 16 },
      "field 'shards': 16 shards leave 16/16 counters per bank of level 1 (levels.1) in a shard; a shard needs at least 2 (use shards <= 8 or larger levels)",
    ],
    [
      { ...small, levels: [{ cells: 8, width: 2, k: 2 }, ...small.levels], lanes: 8, shards: 8 },
      "field 'shards': 8 shards leave 4/8 counters per bank of level 0 (levels.0) in a shard; a shard needs at least 2 (it takes at most 2 shards, fewer than its 8 lanes: use lanes <= 2 or larger levels)",
    ],
    [{ ...small, lanes: 2, shards: 2, merge: true }, "field 'merge': filter 'bitwise' does not merge identical keys"],
    [{ ...w448, target: 'ice40-hx8k', lanes: 4, shards: 8 }, "field 'shards': 8 shards of 12 block RAMs"],
  ])('%j is refused', (cfg, msg) => {
    expect(() => resolveLaneConfig(cfg, 'cfg')).toThrow(msg);
  });

  it('a shard keeps the levels, widths, k, word and key mix, takes 1/S of every level, has no response queue, and its latency is one less', () => {
    // The presets hash the key as given (keyMix "none"); the key mix goes into the shard too.
    const mixed = { ...w448, name: 'w448_spn', keyMix: 'spn' };
    for (const cfg of [w448, preset('bitwise_l6_w1'), preset('bitwise_l3_w8816_ecp5'), mixed]) {
      const lf = lane(cfg, 4, 8);
      const one = lf.base.config as BitwiseDerived;
      const s = lf.shard.config as BitwiseDerived;
      expect(s).toMatchObject({
        filter: 'bitwise',
        wordBits: one.wordBits,
        countBits: one.countBits,
        seed: one.seed,
        keyBits: one.keyBits,
        keyMix: one.keyMix,
        target: one.target,
        direct: true,
      });
      expect(one.keyMix).toBeDefined();
      expect(s.levels.map((L) => [L.cells, L.width, L.k, L.offset])).toEqual(
        one.levels.map((L) => [L.cells / 8, L.width, L.k, L.offset]),
      );
      expect(s.items).toBe(Math.ceil(one.items / 8));
      expect(lf.shard.design().inputs.map((p) => p.name)).not.toContain('out_ready');
      expect(lf.base.design().inputs.map((p) => p.name)).toContain('out_ready');
      expect(lf.base.protocol().latency).toBe(bitwiseLatency({ ...one, direct: false }));
      expect(lf.shard.protocol().latency).toBe(lf.base.protocol().latency - 1);
      expect(lf.shard.protocol().queueDepth).toBe(0);
      expect(lf.base.protocol().queueDepth).toBeGreaterThan(0);
      expect(lf.aging()).toBe('none');
      expect(lf.period()).toBeNull();
    }
  });

  it('a shard whose banks hold fewer than two words of the one-lane packing packs fewer counters per word', () => {
    // 32 and 16 counters per bank: 16 (of 2 bits) and 8 per word on one lane (at most half a bank).
    const one = lane(small, 1, 1).shard.config as BitwiseDerived;
    expect(one.levels.map((L) => [L.bankCells, L.lanes, L.depth])).toEqual([
      [32, 16, 2],
      [16, 8, 2],
    ]);
    const s4 = lane(small, 4, 4).shard.config as BitwiseDerived;
    expect(s4.levels.map((L) => [L.bankCells, L.lanes, L.depth])).toEqual([
      [8, 4, 2],
      [4, 2, 2],
    ]);
    const s8 = lane(small, 8, 8).shard.config as BitwiseDerived;
    expect(s8.levels.map((L) => [L.bankCells, L.lanes, L.wordWidth, L.depth])).toEqual([
      [4, 2, 4, 2],
      [2, 1, 2, 2],
    ]);
  });

  it('every lane shape of accepted one-lane configs is accepted (the small ones built) or refused naming a field', () => {
    const configs: Record<string, unknown>[] = [];
    // Banks of 2, 16 and 1024 counters at level 0, halving (down to 2) at each level above.
    for (const bank of [2, 16, 1024])
      for (const k of [1, 3])
        for (const widths of [[1], [2, 3], [1, 1, 1]])
          configs.push({
            name: 'g',
            filter: 'bitwise',
            levels: widths.map((width, i) => ({ cells: k * Math.max(2, bank >> i), width, k })),
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
      (c, s) => s === 2 && (c.levels as { k: number }[])[0]!.k === 1 && (c.levels as unknown[]).length < 3,
    );
    // 18 configs × 5 shapes. Refused: banks of 2 at any S > 1 (6 configs × 4 shapes); banks of
    // 16 at S = 16, 64, and at S = 8 where a level holds 8 or 4 (per k: 2 + 3 + 3). Accepted:
    // the other 50.
    expect(built).toBe(50);
    expect(refused).toBe(40);
  });
});

describe('bitwise filters on lanes: Verilog and latency', () => {
  it.each([
    ['small', 2, 4, small],
    ['w = 1, three levels', 2, 2, w1],
  ])('%s on %i lanes, %i shards: verilator -Wall clean', async (_name, N, S, cfg) => {
    const r = await lint(lane(cfg, N, S).design());
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });

  it.each([
    ['one level, k = 1', oneLevel, 4],
    ['w = 1, k = 3', w1, 2],
    ['small, k = 2', small, 4],
  ])('%s: out<i>_valid rises the latency after acceptance on every lane (the shard latency + 4)', (_n, cfg, N) => {
    const lf = lane(cfg, N, N);
    expect(lf.latency()).toBe(lf.shard.protocol().latency + 4);
    // The shard answers without its response queue: one cycle less than the one-lane pipeline.
    expect(lf.latency()).toBe(lf.base.protocol().latency + 3);
    expect(laneLatencies(lf)).toEqual(Array.from({ length: N }, () => lf.latency()));
  });
});

/** The run's answers were checked, and exercised every response field, carries and clears. */
function expectVerified(lf: LaneFilter, r: LaneDriveResult): void {
  expect(r.finished).toBe(true);
  expect(r.mismatches).toEqual([]);
  expect(r.responses).toBe(r.ops);
  expect(r.memory!.mismatches).toEqual([]);
  expect(r.memory!.checked).toBeGreaterThan(0);
  const c = lf.base.config as BitwiseDerived;
  const order = r.order!;
  const seen = (f: (a: (typeof order)[number]) => boolean): number => order.filter(f).length;
  expect(seen((a) => a.got.hit === 1n)).toBeGreaterThan(0);
  expect(seen((a) => a.req.op === 'query' && a.got.hit === 0n)).toBeGreaterThan(0);
  expect(seen((a) => a.got.sat === 1n)).toBeGreaterThan(0);
  expect(seen((a) => a.got.count === 2n ** BigInt(c.countBits) - 1n)).toBeGreaterThan(0);
  // Counts past level 0's maximum: adds carried into level 1.
  if (c.levels.length > 1) expect(seen((a) => (a.got.count ?? 0n) > BigInt(c.levels[0]!.max))).toBeGreaterThan(0);
  expect(seen((a) => a.req.op === 'clear')).toBeGreaterThan(0);
}

describe('bitwise filters on lanes: verified against the sharded model', () => {
  const cases: [string, number, number, number, Record<string, unknown>, number | undefined][] = [
    ['small', 2, 4, 0.2, small, undefined],
    ['one level, k = 1', 4, 4, 0.1, oneLevel, undefined],
    ['w = 1, three levels, k = 3, 3, 1', 2, 2, 0.2, w1, undefined],
    ['k = 1 at both levels, two counters per word', 4, 8, 0.2, k1, undefined],
    ['small', 8, 8, 0.1, small, undefined],
    // 16 keys: each is added a few times between two clears, so counts carry and saturate.
    ['deep banks, 16 keys', 2, 2, 0.2, deep, 16],
  ];
  it.each(cases)(
    '%s, %i lanes, %i shards, back-pressure %f',
    (_n, N, S, bp, cfg, keys) => {
      const lf = lane(cfg, N, S);
      const r = driveLanes(lf, {
        opsPerLane: Math.ceil(6000 / N),
        seed: 3,
        backpressure: bp,
        idle: 0.1,
        mix: MIX,
        keepOrder: true,
        ...(keys ? { keys } : {}),
      });
      expectVerified(lf, r);
    },
    300_000,
  );

  it('the checks are not vacuous: another shard hash, or the filter not sharded, disagrees', () => {
    const lf = lane(small, 2, 4);
    const r = driveLanes(lf, { opsPerLane: 2000, seed: 5, keepOrder: true, mix: MIX });
    expect(r.mismatches).toEqual([]);
    // The hardware's linear order replayed with the keys routed by another seed's shard hash.
    expect(answersUnderAnotherShardHash(lf, r.order!, ['count'])).toBeGreaterThan(0);
    // And on the one-lane filter (not sharded: the config's whole memory, its own hashes).
    const one = lf.base.model();
    expect(r.order!.filter((a) => one.apply(a.req).count !== a.got.count).length).toBeGreaterThan(0);
  }, 300_000);

  it('Verilator: the same run gives the same outputs on every port every cycle', async () => {
    const lf = lane(w1, 2, 2);
    const r = driveLanes(lf, { opsPerLane: 1500, seed: 9, backpressure: 0.2, idle: 0.1, mix: MIX, record: true });
    expect(r.mismatches).toEqual([]);
    const cmp = await laneCosim(lf, r);
    expect(cmp.cycles).toBe(r.cycles);
    expect(cmp.mismatches).toEqual([]);
  }, 300_000);

  it('bitwise_l3_w448: four lanes on uniform keys execute more than 2.5 ops per cycle with 8 shards, one hot key one', () => {
    const lf = lane(w448, 4, 8);
    const r = driveLanes(lf, { opsPerLane: 3000, seed: 2, mix: { query: 1, insert: 1 }, throughputOnly: true });
    expect(r.opsPerCycle).toBeGreaterThan(2.5);
    const hot = driveLanes(lf, {
      opsPerLane: 1000,
      seed: 2,
      mix: { query: 1, insert: 1 },
      workload: 'hot',
      throughputOnly: true,
    });
    // One hot key: one shard takes every op, one per cycle.
    expect(hot.opsPerCycle).toBeLessThan(1.05);
    expect(hot.opsPerCycle).toBeGreaterThan(0.9);
  }, 300_000);
});

describe('bitwise filters on lanes: analysis', () => {
  // 64 shards of 1/64 of the counters: a shard takes about 22 of the 1 419 keys (spread by
  // sqrt(64/1419) = 21 %) into banks of 32 counters at level 0.
  it.each([
    ['k_0 = 4', 'above', w448],
    [
      'k = 1',
      'equal to',
      {
        ...w448,
        levels: (w448.levels as { cells: number; width: number }[]).map((L) => ({ ...L, k: 1 })),
      },
    ],
  ])(
    'bitwise_l3_w448, %s: the sharded fp (analysis) matches the rate measured at capacity, %s the one-lane rate (64 shards)',
    (_n, rel, cfg) => {
      const lf = lane(cfg, 8, 64);
      const a = lf.analyze().values;
      // The one-lane rate in the binomial form (the hardware's partitioned formula), which the
      // shards' rate is compared with; the family's `fp` is its Poisson limit.
      const exact = (a as unknown as BitwiseAnalysis).fpPartitioned0;
      expect(Math.abs(exact / a.fpOneLane - 1)).toBeLessThan(rel === 'above' ? 2e-3 : 1e-4);
      if (rel === 'above') expect(a.fp).toBeGreaterThan(exact * 1.05);
      else expect(Math.abs(a.fp / exact - 1)).toBeLessThan(1e-9);
      // 60 filter instances (seeds), each filled to its capacity and probed 5 000 times: the mean
      // of each rate has a standard deviation of about 0.7 % of it (mostly the probes' own noise).
      const ms = Array.from({ length: 60 }, (_, i) => measureShardedFp(lf, { queries: 5_000, seed: 10 + i }));
      const mean = (f: (m: (typeof ms)[number]) => number): number => ms.reduce((t, m) => t + f(m), 0) / ms.length;
      expect(Math.abs(mean((m) => m.sharded) / a.fp - 1)).toBeLessThan(0.03);
      expect(Math.abs(mean((m) => m.single) / a.fpOneLane - 1)).toBeLessThan(0.03);
    },
    300_000,
  );

  it('one shard: the one-lane analysis itself', () => {
    const lf = lane(w448, 1, 1);
    const a = lf.analyze().values;
    expect(a.fp).toBe(a.fpOneLane);
  });
});
