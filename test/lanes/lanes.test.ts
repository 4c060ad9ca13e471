/**
 * N-lane filters (src/lanes/): configs refused with the field named, the Verilog lint-clean, and
 * runs on the compiled simulator checked: each lane's responses in its order, the sequence
 * numbers a gap-free linear order consistent with every lane, every answer equal to the sharded
 * model on that order, the block RAMs equal to the model's. (Verilator on the same kind of runs:
 * lanes.slow.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { shardedFpLine } from '../../src/lanes/filter.js';
import { loadLaneConfig, resolveLaneConfig } from '../../src/config/lanes.js';
import { loadPreset, resolveConfig } from '../../src/config/resolve.js';
import { driveLanes, laneKeyPool, laneKeySource, type LaneWorkload } from '../../src/verify/lanes.js';
import { grantModel } from '../../src/lanes/grantModel.js';
import { measureShardedFp } from '../../src/lanes/analysis.js';
import { planLanes } from '../../src/config/lanePlan.js';
import { shardedFalsePositiveRate } from '../../src/families/apbf/analysis.js';
import { FAMILIES, familyOf } from '../../src/families/index.js';
import { shardsHint } from '../../src/families/types.js';
import { CLEAR_DELAY } from '../../src/stages/clear.js';
import { lint } from '../helpers/tools.js';
import { CompiledSim } from '../../sim/compiled.js';
import { Rng } from '../../src/util/rng.js';

// ECP5: the shards' block RAMs are not limited to an HX8K's 32 (the refusal is tested below).
const base = { ...(loadPreset('apbf_k4_l3') as Record<string, unknown>), target: 'ecp5' };
const TICKS = { query: 4, insert: 4, testAndInsert: 2, tick: 0.004 };

describe('lanes: configs', () => {
  it('a refusal of too many shards names the most a filter takes, or fewer lanes where that is below lanes', () => {
    expect(shardsHint(32, 4, 'a larger filter')).toBe('use shards <= 32 or a larger filter');
    expect(shardsHint(6, 4, 'a larger filter')).toBe('use shards <= 4 or a larger filter');
    expect(shardsHint(2, 8, 'a larger filter')).toBe(
      'it takes at most 2 shards, fewer than its 8 lanes: use lanes <= 2 or a larger filter',
    );
    expect(shardsHint(0.5, 2, 'x')).toBe('it takes at most 1 shard, fewer than its 2 lanes: use lanes <= 1 or x');
  });

  it.each([
    [{ lanes: 3 }, "field 'lanes': must be one of 1, 2, 4, 8"],
    [{ lanes: 16 }, "field 'lanes'"],
    [{ lanes: 4, shards: 2 }, "field 'shards': must be at least lanes (4)"],
    [{ lanes: 2, shards: 6 }, "field 'shards': must be a power of two"],
    [{ lanes: 2, shards: 128 }, "field 'shards': must be at most 64"],
    [{ lanes: 2, shards: 2048 }, "field 'shards'"],
    [{ lanes: 2, merge: 'yes' }, "field 'merge': must be true or false"],
    [{ lanes: 1, merge: true }, "field 'merge': merging identical keys needs lanes >= 2"],
  ])('%j is refused', (over, msg) => {
    expect(() => resolveLaneConfig({ ...base, ...over }, 'cfg')).toThrow(msg);
  });

  it('a one-lane command given an N-lane config says which commands take it', () => {
    expect(() => resolveConfig({ ...base, lanes: 2 }, 'cfg')).toThrow(
      /^cfg: field 'lanes': an N-lane config: .*bloomforge lanes/,
    );
    expect(() => resolveConfig({ ...base, shards: 2 }, 'cfg')).toThrow(/^cfg: field 'shards'/);
    expect(() => resolveConfig({ ...base, merge: true }, 'cfg')).toThrow(/^cfg: field 'merge': an N-lane config/);
  });

  it("shards whose block RAMs, with the lanes' response queues, exceed the target are refused naming shards", () => {
    expect(() => resolveLaneConfig({ ...base, target: 'ice40-hx8k', lanes: 4, shards: 8 }, 'cfg')).toThrow(
      "cfg: field 'shards': 8 shards of 8 block RAMs each and 4 lanes' response queues of 2 need 72; the ice40-hx8k has 32",
    );
    // The shards alone would fit (4 × 8 = 32), the response queues' seq and tag words not.
    expect(() => resolveLaneConfig({ ...base, target: 'ice40-hx8k', lanes: 4, shards: 4 }, 'cfg')).toThrow(
      "cfg: field 'shards': 4 shards of 8 block RAMs each and 4 lanes' response queues of 2 need 40; the ice40-hx8k has 32",
    );
    expect(resolveLaneConfig({ ...base, target: 'ice40-hx8k', lanes: 2, shards: 2 }, 'cfg').shards).toBe(2);
  });

  it('a family without lanes is refused naming the field, with its reason and the families that have lanes', () => {
    const a2 = loadPreset('a2_k3_b512') as Record<string, unknown>;
    expect(() => resolveLaneConfig({ ...a2, lanes: 2 }, 'cfg')).toThrow(
      /field 'lanes': filter 'a2' has one lane only: its halves swap after kappa inserts of keys not already in the active half, .* \(lanes and shards: apbf, apbbf, tbf, btbf, .*gbf.*\)$/,
    );
    const pbf = loadPreset('pbf2_t1024_k2_4k') as Record<string, unknown>;
    expect(() => resolveLaneConfig({ ...pbf, lanes: 4, shards: 8 }, 'cfg')).toThrow(
      /field 'lanes': filter 'pbf2' has one lane only: an insert whose time is before the last accepted insert's is refused, /,
    );
  });

  it('every lane shape of accepted single-lane configs builds or is refused naming a field', () => {
    let built = 0;
    for (const sliceBits of [64, 1024, 65536])
      for (const generation of [1, 100, 5000])
        for (const [lanes, shards] of <[number, number][]>[
          [2, 2],
          [8, 8],
          [8, 64],
        ]) {
          const cfg = { ...base, sliceBits, generation, wordBits: undefined, lanes, shards };
          try {
            resolveLaneConfig({ ...base, sliceBits, generation }, 'cfg');
          } catch {
            continue; // not a valid single-lane config
          }
          try {
            const lf = resolveLaneConfig(cfg, 'cfg');
            // Building is the slow part: the small ones are built, the rest only derived.
            if (shards <= 8 && sliceBits <= 1024) expect(lf.design().cells.length).toBeGreaterThan(0);
            built++;
          } catch (e) {
            expect((e as Error).message).toMatch(/^cfg: field '(lanes|shards|sliceBits|generation|wordBits|spares)'/);
          }
        }
    expect(built).toBeGreaterThan(5);
  }, 600_000);

  it('the shard spares keep clearing ahead of N inserts per cycle', () => {
    // g = 100: one lane clears a shard's 32-word bank within one generation (1 spare); eight
    // lanes can end a generation in ceil(100/8) = 13 cycles, so the bank needs more spares.
    const g = { ...base, generation: 100 };
    const one = resolveLaneConfig({ ...g, lanes: 1, shards: 8 }, 'cfg').shard.config as unknown as Record<
      string,
      number
    >;
    const eight = resolveLaneConfig({ ...g, lanes: 8, shards: 8 }, 'cfg').shard.config as unknown as Record<
      string,
      number
    >;
    expect(one).toMatchObject({ segmentBits: 4096 / 8, columnDepth: 32, spares: 1 });
    expect(eight.spares).toBe(Math.ceil((32 + CLEAR_DELAY + 1) / 13));
  });
});

describe('lanes: Verilog', () => {
  it.each([
    [1, 1],
    [2, 4],
  ])('apbf on %i lanes, %i shards: verilator -Wall clean', async (N, S) => {
    const r = await lint(loadLaneConfig('apbf_k4_l3', { lanes: N, shards: S, target: 'ecp5' }).design());
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });
});

describe('lanes: key widths at the edges', () => {
  // The schema's 8 and 512 bits, and either side of 32 and 64: a lane shard hashes a key of up to
  // 32 bits in one piece and a wider one in registered chunks; the lane's shard hash and data
  // store carry the whole key.
  const keyCfg = (filter: string, keyBits: number): Record<string, unknown> => ({
    name: `${filter}_key${keyBits}`,
    filter,
    k: 2,
    l: 2,
    generation: 100,
    keyBits,
    seed: 5,
    target: 'ecp5',
    lanes: 2,
    shards: 4,
    ...(filter === 'apbf' ? { sliceBits: 1024 } : { sliceBits: 2048, blockBits: 64, bitsPerBlock: 2 }),
  });
  it.each(['apbf', 'apbbf'])(
    '%s, 2 lanes over 4 shards, keys of 8 to 512 bits: verified against the model',
    (f) => {
      for (const keyBits of [8, 31, 33, 64, 65, 512]) {
        const lf = resolveLaneConfig(keyCfg(f, keyBits), 'cfg');
        const r = driveLanes(lf, { opsPerLane: 1500, seed: 2, backpressure: 0.2, idle: 0.1 });
        expect(r.mismatches).toEqual([]);
        expect(r.responses).toBe(r.ops);
        expect(r.memory!.checked).toBeGreaterThan(0);
        expect(r.agingEvents).toBeGreaterThan(10);
      }
    },
    600_000,
  );
  it.each([8, 512])(
    'apbf with %i-bit keys on 2 lanes, 4 shards: verilator -Wall clean',
    async (keyBits) => {
      const r = await lint(resolveLaneConfig(keyCfg('apbf', keyBits), 'cfg').design());
      expect(r.output).toBe('');
      expect(r.code).toBe(0);
    },
    120_000,
  );
});

describe('lanes: verified against the sharded model', () => {
  const cases: [string, number, number, number][] = [
    ['apbf_k4_l3', 1, 2, 0.2],
    ['apbf_k4_l3', 2, 2, 0.3],
    ['apbf_k4_l3', 4, 4, 0.2],
    ['apbf_k4_l3', 4, 8, 0],
    ['apbf_k4_l3', 8, 8, 0.1],
    ['apbbf_k2_l3_b512_4', 4, 4, 0.2],
  ];
  it.each(cases)(
    '%s, %i lanes, %i shards, back-pressure %f',
    (preset, N, S, bp) => {
      const lf = loadLaneConfig(preset, { lanes: N, shards: S, target: 'ecp5' });
      const r = driveLanes(lf, { opsPerLane: Math.ceil(12000 / N), seed: 3, backpressure: bp, idle: 0.1 });
      expect(r.mismatches).toEqual([]);
      expect(r.responses).toBe(r.ops);
      expect(r.memory!.checked).toBeGreaterThan(0);
      expect(r.agingEvents).toBeGreaterThan(2);
    },
    600_000,
  );

  it('ticks from the lanes among the generation ticks: still linearizable (seeds 1-3)', () => {
    const lf = loadLaneConfig('apbf_k4_l3', { lanes: 4, shards: 4, target: 'ecp5' });
    for (const seed of [1, 2, 3]) {
      const r = driveLanes(lf, { opsPerLane: 4000, seed, idle: 0.1, mix: TICKS });
      expect(r.mismatches).toEqual([]);
    }
  }, 600_000);

  it('ticks back to back (lane ticks on a small generation): a tick waits for its spare, nothing is lost', () => {
    // Generations of 64 inserts and every ninth op a tick from a lane: shifts come faster than
    // the spares (sized for one shift per 16 cycles) are cleared, so the dispatcher holds a tick
    // until every shard's tick_ok says its spare is clear (without that gate this fails).
    const cfg = { name: 'tiny_gen', filter: 'apbf', k: 2, l: 2, sliceBits: 1024, generation: 64, keyBits: 32 };
    const lf = resolveLaneConfig({ ...cfg, seed: 3, target: 'ecp5', lanes: 4, shards: 4 }, 'cfg');
    for (const seed of [1, 2]) {
      const r = driveLanes(lf, {
        opsPerLane: 2000,
        seed,
        idle: 0.05,
        backpressure: 0.1,
        mix: { query: 3, insert: 4, testAndInsert: 1, tick: 1 },
      });
      expect(r.finished).toBe(true);
      expect(r.mismatches).toEqual([]);
      expect(r.responses).toBe(r.ops);
    }
  }, 600_000);

  it('a generation never passes g when the cycle before its end granted N inserts (insert-only lanes, 16 shards)', () => {
    // Near the end of a generation the dispatcher knows "full" exactly only after a cycle of at
    // most one insert; with every lane inserting on 16 shards, cycles of four inserts bring the
    // count to g - 4 with four more just granted (g a multiple of 4), and the next insert must
    // wait for the tick. Without that wait a shard's generation takes g + 1 inserts and its
    // memory and answers leave the model's.
    const cfg = { name: 'gen64', filter: 'apbf', k: 2, l: 2, sliceBits: 4096, generation: 64, keyBits: 32 };
    const lf = resolveLaneConfig({ ...cfg, seed: 3, target: 'ecp5', lanes: 4, shards: 16 }, 'cfg');
    const r = driveLanes(lf, { opsPerLane: 3000, seed: 1, mix: { insert: 12, query: 1 } });
    expect(r.mismatches).toEqual([]);
    expect(r.responses).toBe(r.ops);
    expect(r.agingEvents).toBeGreaterThan(100);
  }, 600_000);

  it('generations of 1 and 2 inserts under back-pressure: the insert pending after a tick may wait, the next still waits for its tick', () => {
    // With g = 1 every insert needs a tick first, and with g = 2 every other one; the insert
    // pending after a tick waits while its lane's response queue is full (back-pressure 0.9).
    // Once it goes, the generation is full, and the next insert must wait for the next tick
    // (insBlock holds it back; without its `full` term this fails).
    for (const [generation, lanes, shards] of [
      [1, 2, 2],
      [1, 4, 4],
      [2, 2, 8],
      [2, 4, 4],
    ] as const) {
      const cfg = { name: `g${generation}`, filter: 'apbf', k: 1, l: 1, sliceBits: 1024, generation, keyBits: 32 };
      const lf = resolveLaneConfig({ ...cfg, seed: 3, target: 'ecp5', lanes, shards }, 'cfg');
      for (const seed of [1, 2]) {
        const r = driveLanes(lf, { opsPerLane: 1000, seed, backpressure: 0.9, mix: { insert: 3, query: 1 } });
        expect(r.mismatches).toEqual([]);
        expect(r.responses).toBe(r.ops);
        expect(r.agingEvents).toBeGreaterThan(100);
      }
    }
  }, 600_000);

  it("no APBF shard takes more than a generation's inserts between two ticks (its only aging), a hot shard exactly g", () => {
    // A lane design's APBF shard has no generation counter: it shifts on the dispatcher's ticks
    // only, which is the single-lane model only if the dispatcher ticks every shard before the
    // insert that would find the generation full. Counted at the shards' inputs: the inserts each
    // takes since its last tick or clear. With one hot key on every lane one shard takes every
    // insert, so its count reaches the generation; with random keys it stays within it.
    const OPS = { insert: 1n, tick: 3n, clear: 4n } as const;
    for (const [lanes, shards, generation, hot] of [
      [2, 2, 8, true],
      [4, 4, 5, true],
      [4, 8, 1, true],
      [4, 4, 6, false],
      [8, 8, 35, false],
    ] as const) {
      const cfg = { name: 'ticks', filter: 'apbf', k: 1, l: 1, sliceBits: 2048, generation, keyBits: 32, seed: 3 };
      const lf = resolveLaneConfig({ ...cfg, target: 'ecp5', lanes, shards }, 'cfg');
      const sim = new CompiledSim(lf.design());
      for (const q of lf.design().inputs) sim.poke(q.name, 0n);
      sim.poke('rst', 1n);
      sim.step();
      sim.poke('rst', 0n);
      const rng = new Rng(generation);
      const taken = Array.from({ length: shards }, () => 0);
      let most = 0;
      let ticks = 0;
      for (let t = 0; t < 3000; t++) {
        for (let i = 0; i < lanes; i++) {
          // Inserts, now and then a query; every lane always offers one, responses always taken.
          sim.poke(`out${i}_ready`, 1n);
          sim.poke(`in${i}_valid`, 1n);
          sim.poke(`in${i}_op`, rng.float() < 0.9 ? OPS.insert : 0n);
          sim.poke(`in${i}_key`, hot ? 7n : rng.bits(32));
        }
        for (let s = 0; s < shards; s++) {
          if (sim.peek(`shard${s}_req_valid`) !== 1n) continue;
          const op = sim.peek(`shard${s}_req_op`);
          if (op === OPS.tick || op === OPS.clear) {
            taken[s] = 0;
            if (s === 0 && op === OPS.tick) ticks++;
          } else if (op === OPS.insert) taken[s]!++;
          expect(taken[s]).toBeLessThanOrEqual(generation);
          most = Math.max(most, taken[s]!);
        }
        sim.step();
      }
      expect(ticks).toBeGreaterThan(20);
      if (hot) expect(most).toBe(generation);
    }
  });

  it("the memories are compared after a clear's sweep: a run whose last op is a clear (8 lanes, 8 shards, g = 35)", () => {
    // A clear answers as its sweep starts; comparing the banks with the model's right after the
    // last answer would find the words not yet swept (the driver idles until every memory could
    // have been swept).
    const cfg = { name: 'g35', filter: 'apbf', k: 2, l: 2, sliceBits: 4096, generation: 35, keyBits: 32 };
    const lf = resolveLaneConfig({ ...cfg, seed: 3, target: 'ecp5', lanes: 8, shards: 8 }, 'cfg');
    const mix = { query: 4, insert: 4, testAndInsert: 2, tick: 0.05, clear: 0.05 };
    // Every lane's last request is a clear, so whatever the dispatcher's timing the last op of
    // the linear order is one.
    const r = driveLanes(lf, { opsPerLane: 600, seed: 1, mix, keepOrder: true, lastOp: 'clear' });
    expect(r.order!.at(-1)!.req.op).toBe('clear');
    expect(r.mismatches).toEqual([]);
    expect(r.memory!.checked).toBeGreaterThan(0);
  }, 600_000);

  it('the checker sees a wrong linear order: the same answers replayed in another order disagree', () => {
    const lf = loadLaneConfig('apbf_k4_l3', { lanes: 4, shards: 4, target: 'ecp5' });
    const r = driveLanes(lf, { opsPerLane: 3000, seed: 5, keepOrder: true, keys: 64 });
    expect(r.mismatches).toEqual([]);
    // The first 1000 ops replayed backwards: early queries of an empty filter now follow inserts.
    const order = [...r.order!.slice(0, 1000).reverse(), ...r.order!.slice(1000)];
    const model = lf.model();
    let wrong = 0;
    for (const a of order) if (model.apply(a.req).hit !== a.got.hit) wrong++;
    expect(wrong).toBeGreaterThan(0);
  });

  // Each lane family's first bench preset (the APBF's generation ticks, the TBF's global time).
  const laneBench = FAMILIES.flatMap((f) =>
    f.lanes.kind === 'sharded' ? [f.lanes.benchPreset ?? f.benchPresets[0]!] : [],
  );
  it.each(laneBench)('%s: four lanes on uniform keys execute more than 2.5 ops per cycle with 8 shards', (preset) => {
    const lf = loadLaneConfig(preset, { lanes: 4, shards: 8, target: 'ecp5' });
    const r = driveLanes(lf, { opsPerLane: 4000, seed: 2, mix: { query: 1, insert: 1 }, throughputOnly: true });
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
    // The grant rule's cycle model (what `lanes throughput` prints beside the RTL) agrees with it.
    const model = lf.model();
    const keys = laneKeyPool(lf); // driveLanes's key pool
    const grant = (w: LaneWorkload, merge: boolean) =>
      grantModel({
        lanes: 4,
        shardOf: (k) => model.shardOf(k),
        workload: laneKeySource(w, keys, lf.base.config.keyBits),
        cycles: 4000,
        merge,
        seed: 2,
      });
    expect(Math.abs(grant('uniform', false) / r.opsPerCycle - 1)).toBeLessThan(0.04);
    expect(grant('hot', false)).toBe(1);
    // Merging identical keys: nothing to merge on uniform keys; the hot key runs on every lane.
    expect(grant('uniform', true)).toBeCloseTo(grant('uniform', false), 2);
    expect(grant('hot', true)).toBe(4);
    expect(grant({ zipf: 1.2 }, true)).toBeGreaterThan(1.1 * grant({ zipf: 1.2 }, false));
  });
});

describe('lanes: merging identical keys', () => {
  // A clear now and then empties the filter, so a merged group's query can miss while its insert
  // sets the key: the order of the sequence numbers inside a group (its queries before its
  // insert) is then what the model's answers depend on.
  const CLEARS = { query: 4, insert: 4, testAndInsert: 2, tick: 0.004, clear: 0.02 };

  it('with merge, every answer equals the sharded model on the linear order (hot key, Zipf 1.2 over 32 keys)', () => {
    for (const [lanes, shards] of [
      [2, 2],
      [4, 4],
      [8, 8],
    ] as const) {
      const lf = loadLaneConfig('apbf_k4_l3', { lanes, shards, target: 'ecp5', merge: true });
      for (const workload of ['hot', { zipf: 1.2 }] as const) {
        const r = driveLanes(lf, {
          opsPerLane: 1500,
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
      }
    }
  }, 600_000);

  it('the checker sees the order inside a group: a missed query moved after an insert of its key disagrees', () => {
    const lf = loadLaneConfig('apbf_k4_l3', { lanes: 4, shards: 4, target: 'ecp5', merge: true });
    const r = driveLanes(lf, { opsPerLane: 3000, seed: 6, workload: 'hot', keepOrder: true, mix: CLEARS });
    expect(r.mismatches).toEqual([]);
    // Swap every missed query with the insert or test-and-insert of the same key right after it
    // in the linear order (what numbering a merged cycle in lane order would do when the
    // inserting lane is the lower one; a pair of two cycles is swapped too) and replay. That the
    // hardware numbers a group's queries first is what the first merged test checks: numbering a
    // merged cycle in lane order fails it (tried by hand).
    const order = [...r.order!];
    let swapped = 0;
    for (let n = 0; n + 1 < order.length; n++)
      if (
        order[n]!.req.op === 'query' &&
        (order[n + 1]!.req.op === 'insert' || order[n + 1]!.req.op === 'testAndInsert') &&
        order[n]!.req.key === order[n + 1]!.req.key &&
        order[n]!.got.hit === 0n
      ) {
        [order[n], order[n + 1]] = [order[n + 1]!, order[n]!];
        swapped++;
        n++;
      }
    expect(swapped).toBeGreaterThan(0);
    const model = lf.model();
    let wrong = 0;
    for (const a of order) if (model.apply(a.req).hit !== a.got.hit) wrong++;
    expect(wrong).toBeGreaterThan(0);
  });

  it('lifts the one-hot-key worst case from 1 to nearly N ops per cycle, and Zipf 1.2 by more than 10 %', () => {
    const run = (merge: boolean, workload: LaneWorkload, keys = 1 << 16): number =>
      driveLanes(loadLaneConfig('apbf_k4_l3', { lanes: 4, shards: 4, target: 'ecp5', merge }), {
        opsPerLane: 2000,
        seed: 2,
        mix: { query: 1, insert: 1 },
        workload,
        keys,
        throughputOnly: true,
      }).opsPerCycle;
    expect(run(false, 'hot')).toBeLessThan(1.05);
    expect(run(true, 'hot')).toBeGreaterThan(3.5);
    const plain = run(false, { zipf: 1.2 });
    expect(run(true, { zipf: 1.2 })).toBeGreaterThan(1.1 * plain);
    // Nothing to merge on uniform keys from 2^30 (two heads of a cycle never share a key): the
    // same ops per cycle. (From 2^16 keys a run of 8000 ops may meet one pair, and from then on
    // the two runs draw different keys.)
    expect(run(true, 'uniform', 1 << 30)).toBeCloseTo(run(false, 'uniform', 1 << 30), 2);
  }, 600_000);

  it('the merged design: the core tag holds drop and a lane mask (no slots: answers come in order), the manifest says merge, lint clean', async () => {
    const plain = loadLaneConfig('apbf_k4_l3', { lanes: 2, shards: 2, target: 'ecp5' });
    const merged = loadLaneConfig('apbf_k4_l3', { lanes: 2, shards: 2, target: 'ecp5', merge: true });
    expect(merged.shard.config.tagBits).toBe(1 + 2);
    expect(plain.shard.config.tagBits).toBe(1 + 1);
    expect(merged.manifest().parameters).toMatchObject({ merge: true });
    expect(plain.manifest().parameters).not.toHaveProperty('merge');
    // The shards are built without a response queue of their own (the dispatcher takes every answer).
    const core = plain.shard.design();
    expect(core.inputs.map((q) => q.name)).not.toContain('out_ready');
    expect(plain.shard.protocol().latency).toBe(plain.base.protocol().latency - 1);
    expect(await lint(merged.design())).toEqual({ code: 0, output: '' });
  }, 120_000);
});

describe('lanes: analysis', () => {
  it('the sharded filter keeps the one-lane false-positive rate (same stream, 99 % intervals overlap)', () => {
    const lf = loadLaneConfig('apbf_k4_l3', { lanes: 4, shards: 8, target: 'ecp5' });
    const fp = measureShardedFp(lf, { queries: 40_000, seed: 2 });
    expect(fp.single).toBeGreaterThan(0.05); // the small preset's rate: there is something to compare
    expect(Math.abs(fp.sharded - fp.single)).toBeLessThan(fp.halfWidth.sharded + fp.halfWidth.single);
    expect(fp.loadSpread).toBeCloseTo(Math.sqrt(8 / 709), 6);
  });

  it("the sharded fp (analysis) matches the rate measured just before aging steps, where it differs from one lane's", () => {
    // APBF (10, 7), g = 283 over 64 shards: about 4.4 inserts per shard and generation, so the
    // shards' uneven fill raises the rate by about 38 % (Binomial(g, 1/S) per generation).
    const lf = loadLaneConfig('apbf_k10_l7', { lanes: 8, shards: 64, target: 'ecp5' });
    const a = lf.analyze().values;
    expect(a.fpOneLane).toBeCloseTo(lf.base.analyze().values.fp, 12);
    expect(a.fp / a.fpOneLane).toBeGreaterThan(1.3);
    expect(a.window).toBe(lf.base.analyze().values.window);
    const m = measureShardedFp(lf, { queries: 200_000, seed: 3, moment: 'shift', perShift: 100 });
    // About 400 false positives: 3 standard deviations are 15 %.
    expect(Math.abs(m.sharded / a.fp - 1)).toBeLessThan(0.15);
    expect(m.sharded / a.fpOneLane).toBeGreaterThan(1.15);
    expect(Math.abs(m.single / a.fpOneLane - 1)).toBeLessThan(0.2);
    // One shard is the one-lane formula exactly.
    expect(shardedFalsePositiveRate({ k: 10, l: 7, m: 4096, g: 283 }, 1)).toBeCloseTo(a.fpOneLane, 15);
  });

  it("analyze's line says more, less, or the same as one lane's (no family's rate is below one lane's: the wording alone)", () => {
    expect(shardedFpLine(8, 0.0125, 0.01, 'why')).toBe(
      'fp of 8 shards 1.2500e-2 (one lane 1.0000e-2, 25.00 % more): why',
    );
    expect(shardedFpLine(8, 0.0075, 0.01, 'why')).toBe(
      'fp of 8 shards 7.5000e-3 (one lane 1.0000e-2, 25.00 % less): why',
    );
    expect(shardedFpLine(4, 0.01 * (1 + 1e-12), 0.01, 'why')).toBe("fp of 4 shards 1.0000e-2, the same as one lane's");
    expect(shardedFpLine(4, 0, 0, 'why')).toBe("fp of 4 shards 0.0000e+0, the same as one lane's");
    expect(shardedFpLine(2, 1e-9, 0, 'why')).toBe('fp of 2 shards 1.0000e-9 (one lane 0.0000e+0): why');
  });
});

describe('lanes: plan --lanes', () => {
  const planner = familyOf('apbf')!.planner!;
  const goals = { filter: 'apbf', window: 2000, fp: 0.01, target: 'ecp5' as const, name: 'p', extra: {} };

  it('sizes a sharded filter whose own fp meets the goal, with the most shards up to 8·lanes', () => {
    const lp = planLanes(planner, goals, { lanes: 4 });
    expect(lp.lane.shards).toBe(32);
    expect(lp.fp).toBeLessThanOrEqual(0.01);
    expect(lp.fp).toBeGreaterThan(lp.fpOneLane);
    expect(lp.config).toMatchObject({ lanes: 4, shards: 32, filter: 'apbf' });
    // The written config resolves to the same design.
    expect(resolveLaneConfig(lp.config, 'p').shard.describe()).toBe(lp.lane.shard.describe());
  });

  it('asks the family planner for a lower rate when the shards would miss the goal', () => {
    // Window 500, fp 0.0125: the one-lane plan (fp 0.0117) lands at 0.0131 on 64 shards.
    const tight = { ...goals, window: 500, fp: 0.0125 };
    const naive = resolveLaneConfig({ ...planner.configOf(planner.plan(tight)), lanes: 8, shards: 64 }, 'p');
    expect(naive.analyze().values.fp).toBeGreaterThan(tight.fp);
    const lp = planLanes(planner, tight, { lanes: 8, shards: 64 });
    expect(lp.askedFp).toBeLessThan(tight.fp);
    expect(lp.fp).toBeLessThanOrEqual(tight.fp);
  });

  it('refuses, naming every shard count and why, when nothing fits the target', () => {
    expect(() => planLanes(planner, { ...goals, target: 'ice40-hx8k' }, { lanes: 4 })).toThrow(
      /no sharded apbf meets the goals with --lanes 4: 32 shards: field 'shards': .*; 4 shards: field 'shards'/,
    );
    expect(() => planLanes(planner, goals, { lanes: 3 })).toThrow('--lanes must be one of 1, 2, 4, 8');
  });
});

describe('lanes: a broadcast waiting behind a saturated lane', () => {
  // While a broadcast waits at a head the dispatcher grants every other cycle; the priority order
  // rotates over those cycles only, so the waiting head comes first within N of them whatever the
  // phase it arrives in (were the order to rotate every cycle, with two lanes the grant cycles
  // would always see the same lane first, and a clear behind a lane that never idles would wait
  // for ever).
  it.each([0, 1, 2, 3])(
    '2 lanes, lane 0 offering a query every cycle, a clear on lane 1 after %i cycles: answered',
    (phase) => {
      const lf = resolveLaneConfig(
        {
          name: 'bcast_wait',
          filter: 'partitioned',
          k: 2,
          bits: 512,
          keyBits: 32,
          seed: 3,
          target: 'ecp5',
          lanes: 2,
          shards: 2,
        },
        'cfg',
      );
      const p = lf.shard.protocol();
      const sim = new CompiledSim(lf.design());
      for (const q of lf.design().inputs) sim.poke(q.name, 0n);
      for (let i = 0; i < 2; i++) sim.poke(`out${i}_ready`, 1n);
      sim.poke('rst', 1n);
      sim.step();
      sim.poke('rst', 0n);
      for (let i = 0; i < p.maxStallCycles + 8; i++) sim.step();
      sim.poke('in0_op', BigInt(p.ops.query!));
      sim.poke('in0_valid', 1n);
      let key = 1n;
      for (let c = 0; c < 20 + phase; c++) {
        sim.poke('in0_key', key++);
        sim.step();
      }
      sim.poke('in1_op', BigInt(p.ops.clear!));
      sim.poke('in1_valid', 1n);
      let answered = -1;
      let lane0 = 0;
      for (let c = 0; c < 200 && answered < 0; c++) {
        sim.poke('in0_key', key++);
        const accepted1 = sim.peek('in1_ready') === 1n;
        sim.step();
        if (accepted1) sim.poke('in1_valid', 0n);
        if (sim.peek('out0_valid') === 1n) lane0++;
        if (sim.peek('out1_valid') === 1n) answered = c;
      }
      // Lane 0 keeps being answered, and the clear is answered within a few cycles of its latency.
      expect(lane0).toBeGreaterThan(0);
      expect(answered).toBeGreaterThanOrEqual(0);
      expect(answered).toBeLessThan(lf.latency() + 4 * 2 + 8);
    },
  );
});
