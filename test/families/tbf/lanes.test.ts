/**
 * TBF/BTBF on N lanes (src/families/tbf/lanes.ts, global time in src/lanes/): configs refused with
 * the field named, the Verilog lint-clean, and runs on the compiled simulator checked as the APBF's
 * are (test/lanes/lanes.test.ts) — lane order, a gap-free linear order, every answer equal to the
 * sharded model on it with the time of each op's place and the scan steps where the hardware
 * reports them, the timer banks equal to the model's. The checks are not vacuous: the reported
 * scan steps carry the memory's state, and a step where none is due is flagged.
 */
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { resolveLaneConfig } from '../../../src/config/lanes.js';
import { loadPreset, resolveConfig } from '../../../src/config/resolve.js';
import { driveLanes, laneCosim } from '../../../src/verify/lanes.js';
import { measureShardedFp } from '../../../src/lanes/analysis.js';
import { tbfShardedFp } from '../../../src/families/tbf/lanes.js';
import type { TbfDerived } from '../../../src/families/tbf/types.js';
import { laneShapeGrid } from '../../helpers/lanes.js';
import { lint } from '../../helpers/tools.js';

const btbf = { ...(loadPreset('btbf_k4_w512_b16') as Record<string, unknown>), target: 'ecp5' };
const tbf = { ...(loadPreset('tbf_k4_w256') as Record<string, unknown>), target: 'ecp5' };
// w mod B = 3: the expiry threshold ⌈(w − b)/B⌉ + 1 depends on b, so each op's b must be its own.
const small = {
  name: 'small_btbf',
  filter: 'btbf',
  k: 3,
  timersPerBank: 256,
  timerBits: 8,
  window: 203,
  blockSize: 8,
  keyBits: 32,
  seed: 3,
  target: 'ecp5',
};
const smallTbf = { ...small, name: 'small_tbf', filter: 'tbf', blockSize: undefined };
const CLEARS = { query: 4, insert: 4, testAndInsert: 2, clear: 0.002 };

describe('TBF/BTBF lanes: configs', () => {
  it.each([
    [{ ...btbf, decision: { distinct: { kind: 'uniform', universe: 100000 } }, lanes: 2 }, "field 'decision'"],
    // A one-key-per-step window: an insert one slot ahead of a scan could already be stale.
    [{ ...tbf, window: 4, timerBits: 12, lanes: 4 }, "field 'lanes': with 4 lanes an insert can be 8 inserts older"],
    // The bound: w >= 2N for the TBF (runs at w = 2N below).
    [{ ...tbf, window: 3, timerBits: 12, lanes: 2 }, "field 'lanes': with 2 lanes an insert can be 4 inserts older"],
    [{ ...small, timersPerBank: 64, lanes: 2, shards: 64 }, "field 'shards': 64 shards leave 64/64 timers per bank"],
    // One lane's scan sweeps 4 words (P >= 3 fits 5 timer bits); eight shards of 8 lanes need P >= 22.
    [
      { ...tbf, window: 16, timersPerBank: 256, timerBits: 5, lanes: 8, shards: 8 },
      "field 'lanes': a shard's expiry scan steps once per 8 inserts",
    ],
  ])('%j is refused', (cfg, msg) => {
    expect(() => resolveLaneConfig(cfg, 'cfg')).toThrow(msg);
  });

  it('the one-lane config of the last refusal is accepted', () => {
    expect(() => resolveConfig({ ...tbf, window: 16, timersPerBank: 256, timerBits: 5 }, 'cfg')).not.toThrow();
  });

  it('a shard keeps k, w, B and markAge, takes 1/S of each bank and the padding its scan needs', () => {
    const lf = resolveLaneConfig({ ...btbf, lanes: 4, shards: 8 }, 'cfg');
    const one = lf.base.config as TbfDerived;
    const s = lf.shard.config as TbfDerived;
    expect(s).toMatchObject({ k: one.k, window: one.window, blockSize: one.blockSize, markAge: one.markAge });
    expect(s.timersPerBank).toBe(one.timersPerBank / 8);
    expect(s.wordsPerBank * 8 + 3).toBeLessThanOrEqual(s.blockSize * (s.padding + 1));
    expect(s.tOmega).toBe(s.markAge + s.padding);
    expect(s.laneTime).toEqual({ lanes: 4, shards: 8 });
  });

  it('every lane shape of accepted one-lane configs is accepted (the small ones built) or refused naming a field', () => {
    const configs: Record<string, unknown>[] = [];
    for (const [filter, blockSize] of <[string, number | undefined][]>[
      ['tbf', undefined],
      ['btbf', 8],
    ])
      for (const window of [3, 2000])
        for (const timersPerBank of [2, 64, 4096])
          for (const timerBits of [6, 12])
            for (const k of [1, 4]) configs.push({ ...small, filter, blockSize, window, timersPerBank, timerBits, k });
    const shapes = [
      [1, 1],
      [2, 2],
      [8, 8],
      [8, 64],
    ] as const;
    // Building is the slow part: the small ones are built, the rest only derived.
    const { built, refused } = laneShapeGrid(configs, shapes, (c, s) => s <= 2 && (c.timersPerBank as number) <= 64);
    expect(built).toBeGreaterThan(20);
    expect(refused).toBeGreaterThan(5);
  }, 600_000);
});

describe('TBF/BTBF lanes: Verilog', () => {
  it.each([
    ['btbf', 2, 2],
    ['tbf', 4, 4],
  ])('%s on %i lanes, %i shards: verilator -Wall clean, out<i>_scan on every lane', async (f, N, S) => {
    const lf = resolveLaneConfig({ ...(f === 'tbf' ? smallTbf : small), lanes: N, shards: S }, 'cfg');
    const d = lf.design();
    for (let i = 0; i < N; i++) expect(d.outputs.map((o) => o.name)).toContain(`out${i}_scan`);
    const r = await lint(d);
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });
});

describe('TBF/BTBF lanes: verified against the sharded model', () => {
  it('small btbf, 2 lanes, 4 shards: simulator = Verilator on every port every cycle, answers = model', async () => {
    const lf = resolveLaneConfig({ ...small, lanes: 2, shards: 4 }, 'cfg');
    const r = driveLanes(lf, {
      opsPerLane: 3000,
      seed: 4,
      backpressure: 0.2,
      idle: 0.1,
      workload: { zipf: 1.0 },
      keys: 600,
      mix: CLEARS,
      record: true,
    });
    expect(r.mismatches).toEqual([]);
    const cmp = await laneCosim(lf, r);
    expect(cmp.cycles).toBe(r.cycles);
    expect(cmp.mismatches).toEqual([]);
  }, 300_000);

  const cases: [string, number, number, number, Record<string, unknown>][] = [
    ['small btbf (b matters)', 2, 2, 0.2, small],
    ['small btbf (b matters)', 4, 8, 0.1, small],
    ['small btbf, k = 1', 2, 4, 0.2, { ...small, k: 1 }],
    ['btbf_k4_w512_b16', 4, 4, 0.2, btbf],
    ['small tbf', 8, 8, 0.1, smallTbf],
  ];
  // At the scanner's bound (w = 2N, B = 1) with few timers, so stale timers are common: one
  // insert short of it (w = 2N − 1, now refused) a run on 2 lanes gave wrong answers.
  const atBound = (N: number) => ({ ...smallTbf, k: 2, timersPerBank: 16, window: 2 * N, lanes: N, shards: N });
  it.each([2, 4])('TBF at the scanner bound, w = 2N, %i lanes: every answer and timer as the model', (N) => {
    const lf = resolveLaneConfig(atBound(N), 'cfg');
    for (const seed of [1, 2, 3]) {
      const r = driveLanes(lf, { opsPerLane: 3000, seed, keys: 64, mix: { query: 1, insert: 3 } });
      expect(r.mismatches).toEqual([]);
      expect(r.agingEvents).toBeGreaterThan(10);
    }
  });
  it.each(cases)(
    '%s, %i lanes, %i shards, back-pressure %f (Zipf 1.0, clears)',
    (_, N, S, bp, cfg) => {
      const lf = resolveLaneConfig({ ...cfg, lanes: N, shards: S }, 'cfg');
      const r = driveLanes(lf, {
        opsPerLane: Math.ceil(8000 / N),
        seed: 3,
        backpressure: bp,
        idle: 0.1,
        workload: { zipf: 1.0 },
        keys: 600,
        mix: CLEARS,
      });
      expect(r.mismatches).toEqual([]);
      expect(r.responses).toBe(r.ops);
      expect(r.memory!.checked).toBeGreaterThan(0);
      // Wraps of T+ (global time, every lane's inserts; a coverage condition of the stimulus, which
      // the clears' places in the order move): the scan kept the timers from aliasing across them.
      expect(r.agingEvents).toBeGreaterThanOrEqual(2);
    },
    600_000,
  );

  it('the scan steps the hardware reports carry the timers: replayed without them, the banks differ', () => {
    const lf = resolveLaneConfig({ ...small, lanes: 4, shards: 4 }, 'cfg');
    const r = driveLanes(lf, { opsPerLane: 3000, seed: 5, keepOrder: true, keys: 600 });
    expect(r.mismatches).toEqual([]);
    expect(r.order!.filter((a) => a.scan).length).toBeGreaterThan(100);
    // The same order without the reported steps: the model flags the missing steps, and its timer
    // banks (stale timers left unmarked) differ from the hardware's.
    const m = lf.model();
    m.externalScan = true;
    for (const a of r.order!) m.apply(a.req);
    m.finish();
    expect(m.problems.length).toBeGreaterThan(0);
    expect(m.compareMemories(r.readMemory!).count).toBeGreaterThan(0);
  });

  it('a scan step where none is due is flagged', () => {
    const lf = resolveLaneConfig({ ...small, lanes: 2, shards: 4 }, 'cfg');
    const m = lf.model();
    m.externalScan = true;
    m.apply({ op: 'insert', key: 1n, tag: 0, fields: {} });
    m.scan(); // 1 insert of 4: not due
    expect(m.problems[0]).toMatch(/not due/);
    // And a step due but not reported by the end of the run.
    const n = lf.model();
    n.externalScan = true;
    for (let i = 0; i < 4; i++) n.apply({ op: 'insert', key: BigInt(i), tag: 0, fields: {} });
    n.finish();
    expect(n.problems[0]).toMatch(/1 due/);
  });
});

describe('TBF/BTBF lanes: merging identical keys (global time)', () => {
  // 32 keys: groups of two or more inserts of a key in one cycle are common, and each writes the
  // time of its last insert (in_last) while it answers as of its first (in_before). Building the
  // shard to write at in_before, the dispatcher to number a cycle in the cycle-wide class order or
  // to count a group's time from the lanes before it, or to mark the scan step after the last op
  // in lane order, each makes this fail (tried by hand).
  it.each([
    ['small btbf', 2, 2, small],
    ['small btbf', 4, 8, small],
    ['small tbf', 4, 4, smallTbf],
    ['small tbf', 8, 8, smallTbf],
  ] as const)(
    '%s, %i lanes, %i shards: every answer and timer as the sharded model (hot key, Zipf 1.2)',
    (_, N, S, cfg) => {
      const lf = resolveLaneConfig({ ...cfg, lanes: N, shards: S, merge: true }, 'cfg');
      for (const workload of ['hot', { zipf: 1.2 }] as const) {
        const r = driveLanes(lf, {
          opsPerLane: Math.ceil(6000 / N),
          seed: 4,
          workload,
          keys: 32,
          backpressure: 0.2,
          idle: 0.1,
          mix: CLEARS,
        });
        expect(r.mismatches).toEqual([]);
        expect(r.responses).toBe(r.ops);
        expect(r.memory!.count).toBe(0);
        expect(r.agingEvents).toBeGreaterThan(2);
      }
    },
    300_000,
  );

  it('lifts the one-hot-key worst case from 1 to N ops per cycle (no end-of-generation rule under global time)', () => {
    const run = (merge: boolean, workload: 'hot' | { zipf: number }): number =>
      driveLanes(resolveLaneConfig({ ...small, lanes: 4, shards: 4, merge }, 'cfg'), {
        opsPerLane: 2000,
        seed: 2,
        mix: { query: 1, insert: 1 },
        workload,
        keys: 1 << 16,
        throughputOnly: true,
      }).opsPerCycle;
    expect(run(false, 'hot')).toBeLessThan(1.05);
    expect(run(true, 'hot')).toBeGreaterThan(3.95);
    expect(run(true, { zipf: 1.2 })).toBeGreaterThan(1.1 * run(false, { zipf: 1.2 }));
  }, 300_000);

  it('the merged shard takes in_last; lint clean; simulator = Verilator on every port every cycle (hot key)', async () => {
    const plain = resolveLaneConfig({ ...small, lanes: 2, shards: 2 }, 'cfg');
    const lf = resolveLaneConfig({ ...small, lanes: 2, shards: 2, merge: true }, 'cfg');
    expect(lf.shard.design().inputs.map((p) => p.name)).toContain('in_last');
    expect(plain.shard.design().inputs.map((p) => p.name)).not.toContain('in_last');
    expect(lf.manifest().parameters).toMatchObject({ merge: true });
    const l = await lint(lf.design());
    expect(l.output).toBe('');
    expect(l.code).toBe(0);
    const r = driveLanes(lf, {
      opsPerLane: 1500,
      seed: 5,
      backpressure: 0.2,
      idle: 0.1,
      workload: 'hot',
      mix: CLEARS,
      record: true,
    });
    expect(r.mismatches).toEqual([]);
    const cmp = await laneCosim(lf, r);
    expect(cmp.cycles).toBe(r.cycles);
    expect(cmp.mismatches).toEqual([]);
  }, 300_000);
});

describe('TBF/BTBF lanes: analysis', () => {
  it('the sharded fp (analysis) is within the 99 % interval of the rate measured on the sharded model', () => {
    const lf = resolveLaneConfig({ ...small, lanes: 4, shards: 8 }, 'cfg');
    const fp = measureShardedFp(lf, { queries: 60_000, seed: 2 });
    const want = tbfShardedFp(lf.base.config as TbfDerived, 8);
    expect(Math.abs(fp.sharded - want)).toBeLessThan(fp.halfWidth.sharded + 0.002);
    // One shard is the one-lane filter.
    expect(tbfShardedFp(lf.base.config as TbfDerived, 1)).toBeCloseTo(lf.base.analyze().values.fp, 12);
  });
});

describe('TBF/BTBF lanes: the command line', () => {
  it('lanes verify on the 2 × 2 BTBF preset: the linear order checked, the timers counted as timers', async () => {
    const bin = path.resolve('bin/bloomforge.mjs');
    const r = await execa(
      process.execPath,
      [bin, 'lanes', 'verify', 'btbf_k2_w256_b16_2x2', '--ops', '400', '--no-verilator'],
      { reject: false, all: true },
    );
    expect(r.exitCode, r.all).toBe(0);
    expect(r.stdout).toMatch(/2 lanes, 2 shards: 800 ops/);
    expect(r.stdout).toMatch(/model on the linear order: 0 mismatches; memories: 2048 timers, 0 differ/);
  }, 120_000);
});
