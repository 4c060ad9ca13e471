/**
 * Lane configs: a config with `lanes` and `shards` (and `merge`) resolved into a LaneFilter
 * (src/lanes/filter.ts), every refusal naming the field that binds.
 */
import { FAMILIES, familyOf } from '../families/index.js';
import { Filter } from '../families/filter.js';
import { failer } from '../families/schema.js';
import { laneSupport, type FilterConfig } from '../families/types.js';
import { bramBlocks, device, type Target } from '../device/index.js';
import { blockRamEstimate } from '../synth/index.js';
import { ConfigError } from '../util/errors.js';
import { LANE_COUNTS, LaneFilter, MAX_SHARDS } from '../lanes/filter.js';
import { coreTagBits, laneQueueDepth, metaBits } from '../lanes/rtl.js';
import { lanePresetNames, readConfig, resolveConfig } from './resolve.js';

/** The `filter` names whose family runs on lanes (the registry's `lanes` hooks). */
export function laneFilterNames(): string[] {
  return FAMILIES.filter((f) => f.lanes.kind === 'sharded').flatMap((f) => f.filters);
}

/** A written config with `lanes` and `shards` -> a LaneFilter (ConfigError naming the field). */
export function resolveLaneConfig(raw: unknown, source = 'config'): LaneFilter {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new ConfigError(`${source}: a config is a JSON object`);
  const { lanes: lanesRaw, shards: shardsRaw, merge: mergeRaw, ...rest } = raw as Record<string, unknown>;
  const fail = failer(source);
  const lanes = lanesRaw ?? 1;
  if (typeof lanes !== 'number' || !(LANE_COUNTS as readonly number[]).includes(lanes))
    fail('lanes', `must be one of ${LANE_COUNTS.join(', ')}`);
  const N = lanes as number;
  const shards = shardsRaw ?? N;
  if (typeof shards !== 'number' || !Number.isInteger(shards) || shards < 1 || !Number.isInteger(Math.log2(shards)))
    fail('shards', 'must be a power of two');
  const S = shards as number;
  if (S < N) fail('shards', `must be at least lanes (${N})`);
  if (S > MAX_SHARDS) fail('shards', `must be at most ${MAX_SHARDS}`);
  const name = (rest as { filter?: unknown }).filter;
  const family = typeof name === 'string' ? familyOf(name) : undefined;
  if (family?.lanes.kind === 'one-lane') {
    const supported = laneFilterNames();
    fail(
      'lanes',
      `filter '${String(name)}' has one lane only: ${family.lanes.why} (lanes and shards: ${supported.join(', ')})`,
    );
  }
  const merge = mergeRaw ?? false;
  if (typeof merge !== 'boolean') fail('merge', 'must be true or false');
  if (merge && N < 2) fail('merge', 'merging identical keys needs lanes >= 2');
  if (merge && family && !laneSupport(family)?.merge)
    fail(
      'merge',
      `filter '${String(name)}' does not merge identical keys (its family names no query/insert ops for it)`,
    );
  const base = resolveConfig(rest, source);
  const sup = laneSupport(base.family)!;
  const shardCfg = sup.shard(base.config, { lanes: N, shards: S, merge: merge as boolean }, fail);
  const c: FilterConfig = { ...shardCfg, tagBits: coreTagBits(N, merge as boolean) };
  const shard = new Filter(base.family, c);
  if (merge && shard.protocol().request.length)
    fail('merge', `a merged group runs with its leader's request fields; filter '${String(name)}' has request fields`);
  // The block RAMs: S times a shard's and each lane's response queue (its seq and tag), against
  // the target's.
  const cap = device(base.config.target).capacity;
  if (cap) {
    const target = base.config.target;
    const per = blockRamEstimate(shard.design(), target);
    const depth = laneQueueDepth(shard.protocol().latency);
    const queues = N * bramBlocks(target, metaBits(base.config.tagBits, merge as boolean, !!sup.time), depth);
    if (per * S + queues > cap.brams)
      fail(
        'shards',
        `${S} shards of ${per} block RAMs each and ${N} lanes' response queues of ${queues / N} need ` +
          `${per * S + queues}; the ${target} has ${cap.brams} (use fewer shards, a smaller filter, or target ecp5 or xilinx)`,
      );
  }
  return new LaneFilter(base, shard, N, S, merge as boolean);
}

/** A preset name or a JSON file, with `lanes`/`shards` in it or given here (these win). */
export function loadLaneConfig(
  spec: string,
  over: { lanes?: number; shards?: number; target?: Target; merge?: boolean } = {},
): LaneFilter {
  const { raw, source } = readConfig(spec);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return resolveLaneConfig(raw, source);
  const r = { ...(raw as Record<string, unknown>) };
  if (over.lanes !== undefined) r.lanes = over.lanes;
  if (over.shards !== undefined) r.shards = over.shards;
  if (over.target !== undefined) r.target = over.target;
  if (over.merge !== undefined) r.merge = over.merge;
  return resolveLaneConfig(r, source);
}

/** The N-lane presets (JSON files with `lanes` in the families' presets/ folders). */
export function lanePresets(): LaneFilter[] {
  return lanePresetNames().map((n) => loadLaneConfig(n));
}
