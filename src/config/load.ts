/**
 * The one loader of the commands: a preset name or a JSON file, one-lane or N-lane, resolved to
 * the filter it describes. A config with `lanes`, `shards` or `merge` (written, or given here as
 * the --lanes/--shards/--merge flags) is an N-lane filter (src/config/lanes.ts), any other a
 * one-lane one (src/config/resolve.ts); both are a ConfiguredFilter, told apart by `kind`.
 */
import type { Target } from '../device/index.js';
import type { AnyFilter } from '../lanes/filter.js';
import { ConfigError } from '../util/errors.js';
import { resolveLaneConfig } from './lanes.js';
import { readConfig, resolveConfig } from './resolve.js';

/** Overrides of a config's lane shape and target (command-line flags; these win). */
export interface ShapeOverrides {
  lanes?: number;
  shards?: number;
  merge?: boolean;
  target?: Target;
  /** Resolve as an N-lane filter even without `lanes` (one lane then): `bloomforge lanes …`. */
  asLanes?: boolean;
}

const LANE_FIELDS = ['lanes', 'shards', 'merge'] as const;

/** A written config (parsed JSON) -> its filter, one-lane or N-lane. */
export function resolveFilter(raw: unknown, source = 'config', over: ShapeOverrides = {}): AnyFilter {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new ConfigError(`${source}: a config is a JSON object`);
  const r: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  for (const k of [...LANE_FIELDS, 'target'] as const) if (over[k] !== undefined) r[k] = over[k];
  const lanes = over.asLanes || LANE_FIELDS.some((k) => r[k] !== undefined);
  return lanes ? resolveLaneConfig(r, source) : resolveConfig(r, source);
}

/** A preset name (one-lane or N-lane) or a JSON file -> its filter. */
export function loadFilter(spec: string, over: ShapeOverrides = {}): AnyFilter {
  const { raw, source } = readConfig(spec);
  return resolveFilter(raw, source, over);
}
