/**
 * Shared by the lane tests: the cycles from a request's acceptance on each lane to its out<i>_valid,
 * measured on the compiled simulator (one query on an idle design, every out<i>_ready high), the
 * grid of lane shapes over one-lane configs, a replay under another shard hash, and a hot key's ops
 * per cycle.
 */
import { expect } from 'vitest';
import { CompiledSim } from '../../sim/compiled.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { type LaneFilter } from '../../src/lanes/filter.js';
import { resolveLaneConfig } from '../../src/config/lanes.js';
import type { ResponseFields, StreamModel, StreamRequest } from '../../src/families/types.js';
import { Rng } from '../../src/util/rng.js';
import { driveLanes } from '../../src/verify/lanes.js';

/** Edges from the accepting edge to out<i>_valid, for each lane i in turn (100 when it never rises). */
export function laneLatencies(lf: LaneFilter): number[] {
  const p = lf.shard.protocol();
  const query = Object.keys(p.ops).find((op) => p.semantics[op]?.queries && !p.semantics[op]?.inserts)!;
  const out: number[] = [];
  for (let lane = 0; lane < lf.lanes; lane++) {
    const sim = new CompiledSim(lf.design());
    for (const q of lf.design().inputs) sim.poke(q.name, 0n);
    for (let i = 0; i < lf.lanes; i++) sim.poke(`out${i}_ready`, 1n);
    sim.poke('rst', 1n);
    sim.step();
    sim.poke('rst', 0n);
    // The shards clear their memories after reset (in_ready of a lane rises before): wait it out.
    for (let i = 0; i < p.maxStallCycles + 8; i++) sim.step();
    if (sim.peek(`in${lane}_ready`) !== 1n) throw new Error(`lane ${lane}: in_ready low after the reset sweep`);
    sim.poke(`in${lane}_op`, BigInt(p.ops[query]!));
    sim.poke(`in${lane}_key`, 12345n);
    sim.poke(`in${lane}_valid`, 1n);
    sim.step();
    sim.poke(`in${lane}_valid`, 0n);
    let edges = 1;
    while (sim.peek(`out${lane}_valid`) !== 1n && edges < 100) {
      sim.step();
      edges++;
    }
    out.push(edges);
  }
  return out;
}

/** (lanes, shards) shapes a family's grid of one-lane configs is tried at (laneShapeGrid). */
export const LANE_SHAPES = [
  [1, 1],
  [2, 2],
  [4, 16],
  [8, 64],
] as const;

/**
 * Every lane shape of every config that is a valid one-lane config: the lane config is accepted
 * (and built where `build` says: building is the slow part) or refused with a one-line error
 * naming `lanes` or `shards`. Returns how many were accepted and refused.
 */
export function laneShapeGrid(
  configs: readonly Record<string, unknown>[],
  shapes: readonly (readonly [number, number])[],
  build: (cfg: Record<string, unknown>, shards: number) => boolean,
): { built: number; refused: number } {
  let built = 0;
  let refused = 0;
  for (const cfg of configs)
    for (const [lanes, shards] of shapes) {
      try {
        resolveConfig(cfg, 'cfg');
      } catch {
        continue; // not a valid one-lane config
      }
      try {
        const lf = resolveLaneConfig({ ...cfg, lanes, shards }, 'cfg');
        if (build(cfg, shards)) expect(lf.design().cells.length).toBeGreaterThan(0);
        built++;
      } catch (e) {
        expect((e as Error).message).toMatch(/^cfg: field '(lanes|shards)'/);
        refused++;
      }
    }
  return { built, refused };
}

/**
 * The hardware's linear order (a run with `keepOrder`) replayed on the same shard models with the
 * keys routed by another seed's shard hash: how many answers differ in the fields `fields`. A
 * lane test expects some, so that its checks would see a wrong shard mapping.
 */
export function answersUnderAnotherShardHash(
  lf: LaneFilter,
  order: readonly { req: StreamRequest; got: ResponseFields }[],
  fields: readonly string[],
): number {
  const wrong = lf.model(lf.base.config.seed + 1);
  let differ = 0;
  for (const a of order) {
    const w = wrong.apply(a.req);
    if (fields.some((f) => w[f] !== a.got[f])) differ++;
  }
  return differ;
}

/**
 * Ops per cycle of `lf` with one hot key on every lane (queries and inserts 1:1), its answers
 * checked against the sharded model.
 */
export function hotKeyOpsPerCycle(lf: LaneFilter): number {
  const r = driveLanes(lf, { opsPerLane: 1500, seed: 2, mix: { query: 1, insert: 1 }, workload: 'hot' });
  expect(r.mismatches).toEqual([]);
  return r.opsPerCycle;
}

/**
 * The steady-state false-positive rate of the sharded model and of the one-lane model on one
 * stream of inserted keys (odd): `warm` inserts (a GBF: every cell written; a stable filter: to
 * its stable point), then after each insert `perInsert` never-inserted keys (even) queried on
 * both, `queries` in all.
 */
export function measureSteadyFp(
  lf: LaneFilter,
  o: { warm: number; queries: number; perInsert: number; seed: number },
): { sharded: number; single: number } {
  const sharded: StreamModel = lf.model();
  const single: StreamModel = lf.base.model();
  const rng = new Rng(o.seed);
  const kb = lf.base.config.keyBits;
  const op = (name: string, key: bigint) => ({
    op: name,
    key,
    tag: 0,
    fields: name === 'insert' ? lf.insertFields(rng) : {},
  });
  const insert = (): void => {
    const k = rng.bits(kb) | 1n;
    const r = op('insert', k); // one draw of its fields for both models
    sharded.apply(r);
    single.apply(r);
  };
  for (let i = 0; i < o.warm; i++) insert();
  let fpS = 0;
  let fp1 = 0;
  for (let q = 0; q < o.queries;) {
    insert();
    for (let j = 0; j < o.perInsert; j++, q++) {
      const k = rng.bits(kb) & ~1n;
      if (sharded.apply(op('query', k)).hit) fpS++;
      if (single.apply(op('query', k)).hit) fp1++;
    }
  }
  return { sharded: fpS / o.queries, single: fp1 / o.queries };
}
