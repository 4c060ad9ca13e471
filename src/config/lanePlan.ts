/**
 * `plan --lanes N [--shards S]`: the family's planner sizes the filter, then the sharded filter is
 * checked against the same goals. Shards raise the false-positive rate a little (a shard's
 * segments take Binomial(g, 1/S) of each generation: src/lanes/analysis.ts), so when the sharded
 * rate misses the goal the planner is asked again for a proportionally lower rate. Without
 * --shards the most shards up to 8·N that fit the target are taken (more shards, fewer conflicts:
 * README "Multi-lane filters" measures 3.59 ops/cycle at 4 × 16 and 3.74 at 4 × 32).
 */
import type { FamilyPlanner, PlanConstraints } from '../families/types.js';
import { ConfigError, UsageError } from '../util/errors.js';
import { blockRamEstimate } from '../synth/index.js';
import { LANE_COUNTS, MAX_SHARDS, type LaneFilter } from '../lanes/filter.js';
import { resolveLaneConfig } from './lanes.js';

export interface LanePlan {
  /** The config to write: the planned sizes with `lanes` and `shards`. */
  config: Record<string, unknown>;
  lane: LaneFilter;
  /** False-positive rate of the sharded filter, and of the same sizes on one lane. */
  fp: number;
  fpOneLane: number;
  /** The rate the family planner was asked for in the end. */
  askedFp: number;
  /** Block RAMs of all shards on the target. */
  blockRams: number;
  /** Shard counts tried before the chosen one, and why each was passed over. */
  passed: { shards: number; reason: string }[];
}

/** Shard counts to try, most first. */
function shardChoices(lanes: number, shards: number | undefined): number[] {
  if (shards !== undefined) return [shards];
  const out: number[] = [];
  for (let s = Math.min(8 * lanes, MAX_SHARDS); s >= lanes; s /= 2) out.push(s);
  return out;
}

export function planLanes(planner: FamilyPlanner, k: PlanConstraints, o: { lanes: number; shards?: number }): LanePlan {
  if (!(LANE_COUNTS as readonly number[]).includes(o.lanes))
    throw new UsageError(`plan: --lanes must be one of ${LANE_COUNTS.join(', ')}`);
  const passed: { shards: number; reason: string }[] = [];
  for (const S of shardChoices(o.lanes, o.shards)) {
    let asked = k.fp;
    let reason = '';
    for (let round = 0; round < 8 && !reason; round++) {
      let config: Record<string, unknown>;
      let lane: LaneFilter;
      try {
        const pl = planner.plan({ ...k, fp: asked });
        config = { ...planner.configOf(pl), lanes: o.lanes, shards: S };
        lane = resolveLaneConfig(config, 'plan');
      } catch (e) {
        if (!(e instanceof ConfigError) && !(e instanceof UsageError)) throw e;
        reason = e.message.replace(/^plan: /, '');
        break;
      }
      const a = lane.analyze().values;
      if (a.fp <= k.fp) {
        const blockRams = blockRamEstimate(lane.shard.design(), lane.base.config.target) * S;
        return { config, lane, fp: a.fp, fpOneLane: a.fpOneLane, askedFp: asked, blockRams, passed };
      }
      // The sharded rate is above the goal: ask for a proportionally lower one.
      asked *= (k.fp / a.fp) * 0.99;
    }
    passed.push({ shards: S, reason: reason || `the sharded fp stays above ${k.fp} after 8 rounds` });
  }
  throw new UsageError(
    `plan: no sharded ${k.filter} meets the goals with --lanes ${o.lanes}: ` +
      passed.map((p) => `${p.shards} shards: ${p.reason}`).join('; '),
  );
}
