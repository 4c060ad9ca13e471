/**
 * The importance-aware Bloom filter on N lanes (src/families/ibf/lanes.ts; src/lanes/ without
 * aging), as the stable filter's lane tests (test/families/stable/lanes.test.ts): configs refused
 * with the field named (too many shards for the words, merging), a shard's sizes and its `direct`
 * pipeline (no response queue, latency one less), every lane shape of a grid of small configs
 * built or refused, the Verilog lint-clean, the latency on every lane, runs on the compiled
 * simulator with importances (refused ones too), clears, back-pressure and Zipf keys checked
 * against the sharded model (lane order, a gap-free linear order, every answer, the block RAMs:
 * cells holding the importances, the deletes' traces), one run on Verilator every port every
 * cycle, that the checks see where each shard's generator steps and the importance each insert
 * carries, four lanes' throughput, and the sharded fp against measurements on the models.
 */
import { describe, expect, it } from 'vitest';
import { type LaneFilter } from '../../../src/lanes/filter.js';
import { resolveLaneConfig } from '../../../src/config/lanes.js';
import { loadPreset } from '../../../src/config/resolve.js';
import { driveLanes, laneCosim, type LaneDriveResult } from '../../../src/verify/lanes.js';
import { measureShardedFp } from '../../../src/lanes/analysis.js';
import { stablePoint } from '../../../src/families/ibf/analysis.js';
import { ibfLayout, xorshift32 } from '../../../src/families/ibf/model.js';
import { IbfStreamModel } from '../../../src/families/ibf/stream.js';
import type { IbfDerived } from '../../../src/families/ibf/types.js';
import { laneSupport } from '../../../src/families/types.js';
import {
  answersUnderAnotherShardHash,
  laneLatencies,
  laneShapeGrid,
  LANE_SHAPES,
  measureSteadyFp,
} from '../../helpers/lanes.js';
import { lint } from '../../helpers/tools.js';

const preset = { ...(loadPreset('ibf_imp_k4_m4') as Record<string, unknown>), target: 'ecp5' };
// Small filters with 32-bit keys: keys repeat often and every accepted insert deletes, so queries
// see hits, misses and keys forgotten since they were inserted. MAX = 4 on a 3-bit importance
// port (5..7 and 0 refused); P_i = 4 of 8 cells per word.
const small = {
  name: 'small_ibf',
  filter: 'ibf',
  insert: 'imp',
  k: 3,
  max: 4,
  cells: 256,
  cellsPerWord: 8,
  P: 12,
  keyBits: 32,
  seed: 5,
  target: 'ecp5',
};
// k = 1 and MAX = 1 (one-bit cells: every accepted importance is 1, a 0 is refused).
const single = { ...small, name: 'k1_ibf', k: 1, max: 1, cells: 128, P: 4, seed: 6 };
// M-insert, k = 9 with 16-cell words: two generator lanes (8 banks per lane), P not a multiple of
// k (P_i = 3 in the first two banks, 2 in the others).
const twoLanes = {
  ...small,
  name: 'two_lanes_ibf',
  insert: 'max',
  k: 9,
  max: 7,
  cells: 128,
  cellsPerWord: 16,
  P: 20,
  seed: 7,
};
// A large MAX: 8-bit cells holding importances up to 255 (four cells per 36-bit ecp5 word).
const wide = { ...small, name: 'wide_ibf', k: 2, max: 255, cells: 64, cellsPerWord: 4, P: 6, seed: 9 };
// P = 0: nothing deleted; its shards' words may narrow.
const noDelete = { ...small, name: 'p0_ibf', k: 2, cells: 32, cellsPerWord: undefined, P: 0, seed: 8 };
// Clears now and then, so that answers after a clear (every shard swept, its generators back to
// their seeds) are checked too.
const CLEARS = { query: 4, insert: 4, testAndInsert: 2, clear: 0.01 };

describe('ibf on lanes: configs', () => {
  it.each([
    [{ ...small, lanes: 2, shards: 256 }, "field 'shards': must be at most 64"],
    [
      { ...small, lanes: 2, shards: 64 },
      "field 'shards': 64 shards leave 256/64 cells per bank of the ibf; a shard needs at least 16 (two words of 8 cells: its P = 12 deletes are word-local) (use shards <= 16 or a larger cells)",
    ],
    [
      { ...small, cells: 32, lanes: 4, shards: 4 },
      "field 'shards': 4 shards leave 32/4 cells per bank of the ibf; a shard needs at least 16 (two words of 8 cells: its P = 12 deletes are word-local) (it takes at most 2 shards, fewer than its 4 lanes: use lanes <= 2 or a larger cells)",
    ],
    [
      { ...noDelete, cells: 8, lanes: 8, shards: 8 },
      "field 'shards': 8 shards leave 8/8 cells per bank of the ibf; a shard needs at least 2 (it takes at most 4 shards",
    ],
    [
      { ...small, lanes: 2, shards: 2, merge: true },
      "field 'merge': filter 'ibf' does not merge identical keys (its family names no query/insert ops for it)",
    ],
    [{ ...preset, target: 'ice40-hx8k', lanes: 4, shards: 8 }, "field 'shards': 8 shards of 4 block RAMs"],
  ])('%j is refused', (cfg, msg) => {
    expect(() => resolveLaneConfig(cfg, 'cfg')).toThrow(msg);
  });

  it('a shard keeps the insert scheme, k, MAX, P, cellsPerWord, seed and key bits, takes 1/S of every bank, has no response queue, and its latency is one less', () => {
    for (const [cfg, S] of [
      [preset, 8],
      [small, 16],
      [twoLanes, 4],
      [wide, 8],
    ] as const) {
      const lf = resolveLaneConfig({ ...cfg, lanes: 2, shards: S }, 'cfg');
      const one = lf.base.config as IbfDerived;
      const s = lf.shard.config as IbfDerived;
      expect(s).toMatchObject({
        insert: one.insert,
        k: one.k,
        max: one.max,
        d: one.d,
        P: one.P,
        cellsPerWord: one.cellsPerWord,
        seed: one.seed,
        keyBits: one.keyBits,
        keyMix: one.keyMix,
      });
      expect(s.cells).toBe(one.cells / S);
      expect(s.depth).toBeGreaterThanOrEqual(2);
      expect(ibfLayout(s).lanes).toBe(ibfLayout(one).lanes);
      expect(ibfLayout(s).perBank).toEqual(ibfLayout(one).perBank);
      expect(s.direct).toBe(true);
      expect(one.direct).toBeUndefined();
      const inputs = lf.shard.design().inputs.map((p) => p.name);
      expect(inputs).not.toContain('out_ready');
      expect(inputs).toContain('in_imp');
      expect(lf.base.design().inputs.map((p) => p.name)).toContain('out_ready');
      // The importance is a request field of every lane, as wide as the shard's.
      expect(lf.shard.protocol().request).toEqual([{ name: 'imp', port: 'in_imp', width: one.d }]);
      const d = lf.design();
      for (let i = 0; i < 2; i++) {
        const port = d.inputs.find((p) => p.name === `in${i}_imp`);
        expect(port && d.nets[port.net]!.width).toBe(one.d);
      }
      expect(lf.shard.protocol().latency).toBe(lf.base.protocol().latency - 1);
      expect(lf.shard.protocol().latency).toBe(8);
      expect(lf.shard.protocol().queueDepth).toBe(0);
      expect(lf.shard.design().meta.latency).toBe(8);
      expect(lf.base.design().meta.latency).toBe(9);
      expect(lf.aging()).toBe('none');
      expect(lf.period()).toBeNull();
    }
    // The least shard of a deleting filter: two words; with P = 0 the words narrow to one cell.
    const least = resolveLaneConfig({ ...small, lanes: 2, shards: 16 }, 'cfg').shard.config as IbfDerived;
    expect([least.cells, least.cellsPerWord, least.depth]).toEqual([16, 8, 2]);
    const p0 = resolveLaneConfig({ ...noDelete, lanes: 4, shards: 16 }, 'cfg');
    expect((p0.base.config as IbfDerived).cellsPerWord).toBe(8);
    const t = p0.shard.config as IbfDerived;
    expect([t.cells, t.cellsPerWord, t.depth]).toEqual([2, 1, 2]);
  });

  it('every lane shape of accepted one-lane configs is accepted (the small ones built) or refused naming a field', () => {
    const configs: Record<string, unknown>[] = [];
    for (const cells of [2, 64, 1 << 14])
      for (const [k, max, P] of [
        [1, 1, 0],
        [1, 3, 1],
        [3, 4, 9],
        [5, 255, 40],
        [2, 65535, 3],
      ])
        for (const insert of ['imp', 'max'])
          for (const target of ['ecp5', 'ice40-hx8k'])
            configs.push({ name: 'g', filter: 'ibf', insert, k, max, cells, P, keyBits: 8, seed: 1, target });
    const { built, refused } = laneShapeGrid(
      configs,
      LANE_SHAPES,
      (c, s) => s <= 2 && (c.cells as number) <= 64 && (c.k as number) <= 3,
    );
    // Every refusal names shards: too few words, or too many block RAMs on an iCE40.
    expect(built).toBe(82);
    expect(refused).toBe(46);
  });
});

describe('ibf on lanes: Verilog and latency', () => {
  it.each([
    ['M-insert, two generator lanes', 2, 2, twoLanes],
    ['small', 4, 8, small],
    ['MAX 255', 2, 4, wide],
  ])('%s on %i lanes over %i shards: verilator -Wall clean', async (_n, N, S, cfg) => {
    const r = await lint(resolveLaneConfig({ ...cfg, lanes: N, shards: S }, 'cfg').design());
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });

  it('out<i>_valid rises the latency after acceptance on every lane (the shard latency + 4 = 12)', () => {
    const lf = resolveLaneConfig({ ...small, lanes: 4, shards: 4 }, 'cfg');
    expect(lf.latency()).toBe(lf.shard.protocol().latency + 4);
    expect(lf.latency()).toBe(12);
    expect(laneLatencies(lf)).toEqual([12, 12, 12, 12]);
  });
});

/**
 * The answers in a run's linear order: queries, how many hit, how many missed a key inserted
 * since the last clear (forgotten: a delete took a cell to 0 since), and the inserts refused for
 * their importance (out_bad).
 */
function answerMix(r: LaneDriveResult): { queries: number; hits: number; forgotten: number; refused: number } {
  let queries = 0;
  let hits = 0;
  let forgotten = 0;
  let refused = 0;
  const inserted = new Set<bigint>();
  for (const a of r.order!) {
    const op = a.req.op;
    if (op === 'clear') inserted.clear();
    if (a.got.bad === 1n) refused++;
    else {
      if (op === 'query' || op === 'testAndInsert') {
        queries++;
        if (a.got.hit === 1n) hits++;
        else if (inserted.has(a.req.key)) forgotten++;
      }
      if (op === 'insert' || op === 'testAndInsert') inserted.add(a.req.key);
    }
  }
  return { queries, hits, forgotten, refused };
}

describe('ibf on lanes: verified against the sharded model', () => {
  // Extra options of a run: the key workload, and (the preset: 4096 cells per bank, whose default pool
  // of 4·cells·ln 2 keys would rarely repeat in 6000 ops) the keys of the pool.
  // (MAX = 255 fills the port's range: only 0 is refused, 1 request in 8192, and 6 in 10 requests
  // insert: a run of 96 000 ops expects 7 refused inserts.)
  type Extra = { workload?: 'uniform' | { zipf: number }; keys?: number; opsPerLane?: number };
  const cases: [string, number, number, number, Record<string, unknown>, Extra?][] = [
    ['small', 2, 2, 0.2, small],
    ['small', 4, 4, 0.1, small],
    ['k = 1, MAX = 1', 2, 4, 0.2, single],
    ['M-insert, two generator lanes, P mod k ≠ 0', 2, 2, 0.1, twoLanes],
    ['MAX = 255', 4, 8, 0.1, wide, { opsPerLane: 24000 }],
    ['P = 0, one-cell words in the shards', 4, 16, 0.1, noDelete],
    ['small, Zipf 1.2 over the keys', 4, 4, 0.2, small, { workload: { zipf: 1.2 } }],
    ['ibf_imp_k4_m4', 8, 8, 0.1, preset, { keys: 1024 }],
  ];
  it.each(cases)(
    '%s, %i lanes, %i shards, back-pressure %f',
    (_n, N, S, bp, cfg, extra) => {
      const lf = resolveLaneConfig({ ...cfg, lanes: N, shards: S }, 'cfg');
      const r = driveLanes(lf, {
        opsPerLane: Math.ceil(6000 / N),
        seed: 3,
        backpressure: bp,
        idle: 0.1,
        mix: CLEARS,
        keepOrder: true,
        ...extra,
      });
      expect(r.finished).toBe(true);
      expect(r.mismatches).toEqual([]);
      expect(r.responses).toBe(r.ops);
      expect(r.memory!.mismatches).toEqual([]);
      expect(r.memory!.checked).toBeGreaterThan(0);
      expect(r.order!.some((a) => a.req.op === 'clear')).toBe(true);
      // Not vacuous: hits and misses, keys forgotten since their insert (when it deletes), and
      // inserts refused for their importance (one request in 32 carries any port value).
      const mix = answerMix(r);
      expect(mix.hits).toBeGreaterThan(mix.queries / 20);
      expect(mix.hits).toBeLessThan(mix.queries);
      const c = lf.base.config as IbfDerived;
      if (c.P > 0) expect(mix.forgotten).toBeGreaterThan(mix.queries / 300);
      else expect(mix.forgotten).toBe(0);
      // Refused: 0 and the port's values above MAX, drawn for one request in 32 (as many as
      // accepted ones where MAX is at most half the port's range).
      if (2 * c.max < 2 ** c.d) expect(mix.refused).toBeGreaterThan(10);
      else expect(mix.refused).toBeGreaterThan(0);
    },
    300_000,
  );

  it('the checks are not vacuous: the same shards with another shard hash disagree', () => {
    const lf = resolveLaneConfig({ ...small, lanes: 2, shards: 4 }, 'cfg');
    const r = driveLanes(lf, { opsPerLane: 3000, seed: 5, keepOrder: true, mix: { query: 1, insert: 1 } });
    expect(r.mismatches).toEqual([]);
    // The hardware's linear order replayed with the keys routed by another seed's shard hash.
    expect(answersUnderAnotherShardHash(lf, r.order!, ['hit'])).toBeGreaterThan(0);
  }, 300_000);

  /**
   * The hardware's linear order (a run with keepOrder) replayed on fresh shard models with each
   * request changed by `change` and, after every accepted insert, the generators of the shards it
   * did not go to stepped when `stepOthers`: the answers and the memory words (against the
   * simulator's) that differ.
   */
  function replay(
    lf: LaneFilter,
    r: LaneDriveResult,
    o: { stepOthers: boolean; imp?: (imp: bigint) => bigint },
  ): { answers: number; words: number } {
    const route = lf.model();
    const c = lf.shard.config as IbfDerived;
    const shards = Array.from({ length: lf.shards }, () => new IbfStreamModel(c));
    // The shard's key mix (the config's, SPN unless "none"), which lf.shard.model() would apply.
    const mix = lf.shard.mixer() ?? ((k: bigint) => k);
    let answers = 0;
    for (const a of r.order!) {
      const s = route.shardOf(a.req.key);
      const imp = a.req.fields.imp ?? 0n;
      const req = { ...a.req, key: mix(a.req.key), fields: { ...a.req.fields, ...(o.imp ? { imp: o.imp(imp) } : {}) } };
      const got = shards[s]!.apply(req);
      if (got.hit !== a.got.hit || got.bad !== a.got.bad) answers++;
      if (o.stepOthers && got.bad === 0n && (a.req.op === 'insert' || a.req.op === 'testAndInsert'))
        for (const [t, m] of shards.entries())
          if (t !== s) for (let l = 0; l < m.model.lanes.length; l++) m.model.lanes[l] = xorshift32(m.model.lanes[l]!);
    }
    const words = shards.reduce(
      (n, m, s) => n + m.compareMemories((mem, addr) => r.readMemory!(`shard${s}_${mem}`, addr)).count,
      0,
    );
    return { answers, words };
  }

  // Each shard's generator lanes step on its own accepted inserts (so they do in the model).
  // Replayed with every shard's generators stepping on every accepted insert of the order (one
  // generator for the whole filter, as on one lane), the deletes fall on other cells: the
  // memories disagree. Replayed as it ran, nothing does (the replay itself is right).
  it("the checks see each shard's generators: stepped on every insert of the order instead, the memories disagree", () => {
    const lf = resolveLaneConfig({ ...small, lanes: 4, shards: 4 }, 'cfg');
    const r = driveLanes(lf, { opsPerLane: 1000, seed: 6, keepOrder: true, mix: { query: 1, insert: 1 } });
    expect(r.mismatches).toEqual([]);
    expect(r.memory!.count).toBe(0);
    expect(replay(lf, r, { stepOthers: false })).toEqual({ answers: 0, words: 0 });
    const wrong = replay(lf, r, { stepOthers: true });
    expect(wrong.words).toBeGreaterThan(10);
    expect(wrong.answers).toBeGreaterThan(0);
  }, 300_000);

  // The importance travels with each request through the lanes to its shard's in_imp: the cells
  // hold it (Imp-insert), and a refused one (0, 5..7) changes nothing. Replayed with every
  // accepted importance one lower or raised to MAX, the memories disagree; with the refused ones
  // replaced by an accepted importance, the answers (out_bad) and the memories do.
  it('the checks see the importance each insert carries: replayed with other importances, the answers and memories disagree', () => {
    const lf = resolveLaneConfig({ ...small, lanes: 4, shards: 4 }, 'cfg');
    const r = driveLanes(lf, { opsPerLane: 1500, seed: 7, keepOrder: true, mix: { query: 1, insert: 2 } });
    expect(r.mismatches).toEqual([]);
    expect(r.memory!.count).toBe(0);
    expect(replay(lf, r, { stepOthers: false, imp: (v) => v })).toEqual({ answers: 0, words: 0 });
    const max = BigInt((lf.base.config as IbfDerived).max);
    const ok = (v: bigint) => v >= 1n && v <= max;
    const accepted = r.order!.filter((a) => a.req.op === 'insert' && a.got.bad === 0n).map((a) => a.req.fields.imp);
    // Every importance 1..MAX was inserted; and some were refused.
    expect(new Set(accepted).size).toBe(4);
    expect(r.order!.filter((a) => a.got.bad === 1n).length).toBeGreaterThan(20);
    const lower = replay(lf, r, { stepOthers: false, imp: (v) => (ok(v) && v > 1n ? v - 1n : v) });
    expect(lower.words).toBeGreaterThan(10);
    const atMax = replay(lf, r, { stepOthers: false, imp: (v) => (ok(v) ? max : v) });
    expect(atMax.words).toBeGreaterThan(10);
    const accept = replay(lf, r, { stepOthers: false, imp: (v) => (ok(v) ? v : 1n) });
    expect(accept.answers).toBeGreaterThan(20);
    expect(accept.words).toBeGreaterThan(10);
  }, 300_000);

  it('Verilator: the same run gives the same outputs on every port every cycle', async () => {
    const lf = resolveLaneConfig({ ...small, lanes: 2, shards: 2 }, 'cfg');
    const r = driveLanes(lf, { opsPerLane: 2000, seed: 9, backpressure: 0.2, idle: 0.1, mix: CLEARS, record: true });
    expect(r.mismatches).toEqual([]);
    const cmp = await laneCosim(lf, r);
    expect(cmp.cycles).toBe(r.cycles);
    expect(cmp.mismatches).toEqual([]);
  }, 300_000);

  it('ibf_imp_k4_m4: four lanes on uniform keys execute more than 2.5 ops per cycle with 8 shards', () => {
    const lf = resolveLaneConfig({ ...preset, lanes: 4, shards: 8 }, 'cfg');
    const r = driveLanes(lf, { opsPerLane: 3000, seed: 2, mix: { query: 1, insert: 1 }, throughputOnly: true });
    expect(r.opsPerCycle).toBeGreaterThan(2.5);
  }, 300_000);
});

describe('ibf on lanes: analysis', () => {
  // 1024 cells per bank in 8-cell words, k = 3, MAX = 4, P = 6 (P_i = 2): over 16 shards of 64
  // cells (eight words per bank).
  const measured = { ...small, name: 'm_ibf', cells: 1024, P: 6, lanes: 8, shards: 16 };

  it('the sharded fp is the family rate on the shard config, the one-lane rate (a chain in s/q_i only)', () => {
    for (const [cfg, S] of [
      [preset, 64],
      [measured, 64],
      [twoLanes, 4],
      [wide, 8],
      [noDelete, 16],
    ] as const) {
      const lf = resolveLaneConfig({ ...cfg, lanes: 4, shards: S }, 'cfg');
      const a = lf.analyze().values;
      const one = lf.base.config as IbfDerived;
      expect(a.fp).toBe(stablePoint(lf.shard.config as IbfDerived)!.fp);
      // Equal but for rounding: Imp-insert's balance equations are solved in s and q_i, whose
      // ratio (all the stable point depends on) is the shard's and the one lane's.
      expect(Math.abs(a.fp / a.fpOneLane - 1)).toBeLessThan(1e-12);
      expect(a.fpOneLane).toBe(stablePoint(one)!.fp);
      expect(lf.analyze().lines[0]).toMatch(new RegExp(`^fp of ${S} shards \\S+, the same as one lane's$`));
    }
    // P = 0 forgets nothing: at the stable point every cell is set.
    expect(resolveLaneConfig({ ...noDelete, lanes: 4, shards: 16 }, 'cfg').analyze().values.fp).toBe(1);
  });

  // Measured at the stable point (steadyInserts: 20 inserts per cell of a bank, a cell never set
  // since the start with probability e^-20), then 5 never-inserted keys after each insert, 3
  // instances of 100 000 queries, for Imp-insert and M-insert. (The inserts between the queries
  // keep converging, so a too short warm-up shows only in the measurement at one moment below.)
  it.each(['imp', 'max'])(
    '%s-insert: the sharded fp (analysis) matches the rate measured at the stable point on the models, and so does one lane',
    (insert) => {
      const lf = resolveLaneConfig({ ...measured, insert }, 'cfg');
      const a = lf.analyze().values;
      const warm = laneSupport(lf.base.family)!.steadyInserts!(lf.base.config);
      expect(warm).toBe(20 * 1024);
      const ms = Array.from({ length: 3 }, (_, i) =>
        measureSteadyFp(lf, { warm, queries: 100_000, perInsert: 5, seed: 10 + i }),
      );
      const mean = (f: (m: (typeof ms)[number]) => number): number => ms.reduce((t, m) => t + f(m), 0) / ms.length;
      // 300 000 queries, tens of thousands of false positives on each model: a 99 % interval of
      // about ±1.5 % for the queries alone, more with the filter's own spread over time.
      expect(Math.abs(mean((m) => m.sharded) / a.fp - 1)).toBeLessThan(0.03);
      expect(Math.abs(mean((m) => m.single) / a.fpOneLane - 1)).toBeLessThan(0.03);
      // At one moment, as `lanes analyze` measures: right after steadyInserts inserts, 5000 probes
      // and no more inserts, over 20 instances (the state is the stable point's already there).
      const at = Array.from({ length: 20 }, (_, i) =>
        measureSteadyFp(lf, { warm, queries: 5000, perInsert: 5000, seed: 20 + i }),
      );
      const atMean = (f: (m: (typeof at)[number]) => number): number => at.reduce((t, m) => t + f(m), 0) / at.length;
      expect(Math.abs(atMean((m) => m.sharded) / a.fp - 1)).toBeLessThan(0.05);
      expect(Math.abs(atMean((m) => m.single) / a.fpOneLane - 1)).toBeLessThan(0.05);
    },
    120_000,
  );

  // `lanes analyze`'s measurement (measureShardedFp) inserts with the family's insertFields
  // (importances uniform on 1..MAX, as the analysis takes them): without them every insert would
  // be refused (importance 0) and both rates would measure 0.
  it('lanes analyze measures both rates at the stable point with importances drawn as the analysis takes them', () => {
    const lf = resolveLaneConfig({ ...measured }, 'cfg');
    const a = lf.analyze().values;
    const runs = Array.from({ length: 20 }, (_, i) => measureShardedFp(lf, { queries: 5_000, seed: 40 + i }));
    expect(runs[0]!.inserts).toBe(20 * 1024);
    const mean = (f: (m: (typeof runs)[number]) => number): number => runs.reduce((t, m) => t + f(m), 0) / runs.length;
    expect(Math.abs(mean((m) => m.sharded) / a.fp - 1)).toBeLessThan(0.05);
    expect(Math.abs(mean((m) => m.single) / a.fpOneLane - 1)).toBeLessThan(0.05);
  }, 120_000);
});
