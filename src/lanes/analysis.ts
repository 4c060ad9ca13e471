/**
 * What sharding does to a filter's figures. The analysis of a sharded config is the family's
 * analysis of the whole config (S shards of m/S bits per segment are m bits per segment with a
 * two-part index), except for one thing the formulas assume: that every segment takes exactly g
 * inserts per generation spread uniformly over its m bits. With shards, a query's shard took
 * Binomial(g, 1/S) of a generation's inserts into m/S bits: the same mean fill, with a relative
 * spread of about sqrt(S/g) per generation, and since the false-positive rate is convex in the
 * fill, the mean over shards is slightly above the single-lane rate. `measureShardedFp` measures
 * both on the models with the same insert stream and never-inserted queries.
 */
import { proportionSd, zTwoSided } from '../analysis/stats.js';
import type { StreamModel } from '../families/types.js';
import { Rng } from '../util/rng.js';
import { UsageError } from '../util/errors.js';
import type { LaneFilter } from './filter.js';

export interface ShardedFp {
  inserts: number;
  queries: number;
  /** Measured false-positive rate of the sharded filter and of the same config on one lane. */
  sharded: number;
  single: number;
  /** 99 % normal half-widths of the two rates. */
  halfWidth: { sharded: number; single: number };
  /** sqrt(S/g): the relative spread of a shard's inserts per generation (a set filter: of its n inserts). */
  loadSpread: number;
}

/**
 * Both filters take distinct keys; past the first `warm` inserts, never-inserted keys are queried
 * on both (`queries` in all): with `moment` 'cycle' (the default) one after every insert, so the
 * rates are averaged over the filter's whole aging cycle; with 'shift', `perShift` of them just
 * before each aging step (after every period-th insert), the moment the analysis's rate is for.
 * A family that does not age (a set or multiset filter) is measured at its capacity, the n its analysis is
 * for (a family without a capacity: after the inserts that bring it to its steady state): n keys
 * inserted, then the never-inserted keys queried.
 */
export function measureShardedFp(
  lf: LaneFilter,
  o: { queries: number; seed: number; moment?: 'cycle' | 'shift'; perShift?: number },
): ShardedFp {
  const g = lf.period();
  if (g === null) return measureAtCapacity(lf, o);
  const sharded = lf.model();
  const single: StreamModel = lf.base.model();
  const warm = (lf.base.window() ?? g) + 2 * g;
  const rng = new Rng(o.seed);
  const key = (): bigint => rng.bits(lf.base.config.keyBits) | 1n; // odd: inserted keys
  const probe = (): bigint => rng.bits(lf.base.config.keyBits) & ~1n; // even: never inserted
  let fpS = 0;
  let fp1 = 0;
  let queries = 0;
  let inserts = 0;
  const op = (opName: string, k: bigint) => ({
    op: opName,
    key: k,
    tag: 0,
    fields: opName === 'insert' ? lf.insertFields(rng) : {},
  });
  while (queries < o.queries) {
    const k = key();
    const r = op('insert', k); // one draw of its fields for both models
    sharded.apply(r);
    single.apply(r);
    inserts++;
    if (inserts <= warm) continue;
    const n = o.moment === 'shift' ? (inserts % g === 0 ? Math.min(o.perShift ?? 100, o.queries - queries) : 0) : 1;
    for (let i = 0; i < n; i++) {
      const q = probe();
      if (sharded.apply(op('query', q)).hit) fpS++;
      if (single.apply(op('query', q)).hit) fp1++;
      queries++;
    }
  }
  return rates(inserts, queries, fpS, fp1, Math.sqrt(lf.shards / g));
}

/** Half-width of the 99 % normal interval of a rate p measured on `queries` queries. */
const hw = (p: number, queries: number): number => zTwoSided(0.99) * proportionSd(p, queries);

function rates(inserts: number, queries: number, fpS: number, fp1: number, loadSpread: number): ShardedFp {
  return {
    inserts,
    queries,
    sharded: fpS / queries,
    single: fp1 / queries,
    halfWidth: { sharded: hw(fpS / queries, queries), single: hw(fp1 / queries, queries) },
    loadSpread,
  };
}

/** Inserts `lanes analyze` runs into both models at most (a Set of distinct keys holds 2^24). */
export const MAX_MEASURED_INSERTS = 1 << 24;

/**
 * A filter that does not age: its capacity n of distinct keys (or the inserts to its steady state)
 * into both models, then `queries` never-inserted keys.
 */
function measureAtCapacity(lf: LaneFilter, o: { queries: number; seed: number }): ShardedFp {
  const n = lf.measureInserts();
  if (n === null) throw new Error(`lanes analyze: filter '${lf.name}' neither ages nor has a capacity`);
  // The steady state needs no distinct keys (odd keys are inserted, even ones probed either way).
  const distinct = !lf.measuresSteadyState();
  if (n > MAX_MEASURED_INSERTS)
    throw new UsageError(
      `lanes analyze: ${n} inserts to measure ${lf.name} at its ${distinct ? 'capacity' : 'steady state'}; this measurement takes at most ${MAX_MEASURED_INSERTS} (a smaller filter shows the same effect of shards)`,
    );
  const kb = lf.base.config.keyBits;
  if (kb < 40 && 2 ** (kb - 1) < 2 * n)
    throw new UsageError(
      `lanes analyze: ${kb}-bit keys have too few values for ${n} distinct inserted keys and probes`,
    );
  const sharded = lf.model();
  const single: StreamModel = lf.base.model();
  const rng = new Rng(o.seed);
  const op = (opName: string, k: bigint) => ({
    op: opName,
    key: k,
    tag: 0,
    fields: opName === 'insert' ? lf.insertFields(rng) : {},
  });
  // Odd keys (inserted; distinct up to a capacity); even keys are never inserted.
  const seen = new Set<bigint>();
  for (let i = 0; i < n;) {
    const k = rng.bits(lf.base.config.keyBits) | 1n;
    if (distinct) {
      if (seen.has(k)) continue;
      seen.add(k);
    }
    const r = op('insert', k); // one draw of its fields for both models
    sharded.apply(r);
    single.apply(r);
    i++;
  }
  let fpS = 0;
  let fp1 = 0;
  for (let i = 0; i < o.queries; i++) {
    const q = rng.bits(lf.base.config.keyBits) & ~1n;
    if (sharded.apply(op('query', q)).hit) fpS++;
    if (single.apply(op('query', q)).hit) fp1++;
  }
  return rates(n, o.queries, fpS, fp1, Math.sqrt(lf.shards / n));
}
