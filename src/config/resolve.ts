/**
 * Config resolution: a preset name or a JSON file -> its family -> (the planner, when the config
 * states an intent such as a window and a false-positive rate instead of sizes) -> the family's
 * derivation from explicit sizes -> a `Filter`. Every error is one line naming the source and the
 * field (ConfigError, exit 2).
 */
import fs from 'node:fs';
import path from 'node:path';
import { familyOf, filterNames, presetEntry, presets } from '../families/index.js';
import { Filter } from '../families/filter.js';
import { failer, parseConfig } from '../families/schema.js';
import type { FilterConfig } from '../families/types.js';
import { defaultKeyMix, type KeyMix } from '../model/keyMix.js';
import { ConfigError, UsageError } from '../util/errors.js';
import { inputFile } from '../util/files.js';

/** A written config (parsed JSON) -> a configured filter. */
export function resolveConfig(raw: unknown, source = 'config'): Filter {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new ConfigError(`${source}: a config is a JSON object`);
  const name = (raw as { filter?: unknown }).filter;
  const family = typeof name === 'string' ? familyOf(name) : undefined;
  if (!family) throw new ConfigError(`${source}: field 'filter': must be one of ${filterNames().join(', ')}`);
  const fail = failer(source);
  for (const field of ['lanes', 'shards', 'merge'])
    if (field in raw)
      fail(
        field,
        'an N-lane config: resolveConfig builds one-lane filters; resolveFilter (src/config/load.ts) builds both, as every command does (and `bloomforge lanes …`)',
      );
  const cfg = parseConfig(family.schema, raw, source);
  const intent = family.planner?.intent(cfg, fail) ?? null;
  // The key mix is the same for every family: kept on the derived config, applied by the Filter.
  const mixOf = (c: FilterConfig): { keyMix: KeyMix } => ({
    keyMix: (raw as { keyMix?: KeyMix }).keyMix ?? defaultKeyMix(c.keyBits),
  });
  if (!intent) {
    const c = family.derive(cfg, fail);
    return new Filter(family, { ...c, ...mixOf(c) });
  }
  const planner = family.planner!;
  let sized: Record<string, unknown>;
  try {
    sized = planner.configOf(planner.plan(intent), cfg);
  } catch (e) {
    if (e instanceof ConfigError) throw new ConfigError(`${source}: ${e.message}`);
    throw e;
  }
  const derived = family.derive(parseConfig(family.schema, sized, source), fail);
  const c: FilterConfig = { ...derived, planned: planner.record(intent), ...mixOf(derived) };
  return new Filter(family, c);
}

/** Every one-lane preset's name, sorted (the N-lane presets: lanePresetNames). */
export function presetNames(): string[] {
  return presets()
    .filter((p) => !p.lanes)
    .map((p) => p.name);
}

/** The N-lane presets' names, sorted (src/lanes/ loads them). */
export function lanePresetNames(): string[] {
  return presets()
    .filter((p) => p.lanes)
    .map((p) => p.name);
}

/** The written config of a preset (parsed JSON). */
export function loadPreset(name: string): unknown {
  const p = presetEntry(name);
  if (!p)
    throw new ConfigError(
      `no preset '${name}' (presets: ${presets()
        .map((x) => x.name)
        .join(', ')})`,
    );
  return JSON.parse(fs.readFileSync(p.file, 'utf8'));
}

/** A preset name or a path to a JSON file (resolved and checked) -> its written config and source name. */
export function readConfig(spec: string): { raw: unknown; source: string } {
  const preset = presetEntry(spec);
  if (!preset && !spec.endsWith('.json') && !fs.existsSync(spec))
    throw new UsageError(
      `config: '${spec}' is neither a preset nor a .json file (\`bloomforge presets\` lists the presets)`,
    );
  const file = preset?.file ?? inputFile(spec, 'config', ['.json']);
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError(`${spec}: not valid JSON: ${(e as Error).message}`);
  }
  return { raw, source: preset ? `preset ${spec}` : path.basename(file) };
}

/** A preset name or a path to a JSON file (resolved and checked) -> a configured filter. */
export function loadConfig(spec: string): Filter {
  const { raw, source } = readConfig(spec);
  return resolveConfig(raw, source);
}

/** The filters of every preset. */
export function presetFilters(): Filter[] {
  return presetNames().map(loadConfig);
}
