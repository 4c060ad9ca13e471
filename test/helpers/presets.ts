/** Preset choices shared by tests that cannot afford every preset for every engine. */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../src/tools/index.js';
import { loadConfig, presetFilters, presetNames } from '../../src/config/resolve.js';
import type { Filter } from '../../src/families/filter.js';

/**
 * Each family's preset with the smallest window, capacity or aging run (the fewest warm-up
 * inserts a windowed experiment needs; usually also the smallest design), sorted by name.
 */
export function smallestPresetPerFamily(): string[] {
  const best = new Map<string, { name: string; size: number }>();
  for (const name of presetNames()) {
    const f = loadConfig(name);
    const w = f.window();
    const size = Math.max(w !== null && Number.isFinite(w) ? w : (f.capacity() ?? 0), f.aging()?.run.ops ?? 0);
    const b = best.get(f.family.id);
    if (!b || size < b.size) best.set(f.family.id, { name, size });
  }
  return [...best.values()].map((b) => b.name).sort();
}

/**
 * The test tier (`BLOOMFORGE_TESTS`): `full` (`make test-full`) runs the per-preset slow checks —
 * Yosys, Icarus, the 10^5-op co-simulations — on every preset; otherwise (`make test`, what CI
 * runs) on `coverPresets()`, by pipeline shape (the co-simulations) or by filter value (Yosys,
 * Icarus), with the back-pressure 0.3 stream shortened. A few single checks run in the full tier
 * only (the control wrapper's own Yosys run, the APBBF's lanes on Verilator: their files say
 * why). Every other check runs on every preset in both tiers.
 */
export function fullTier(env: NodeJS.ProcessEnv = process.env): boolean {
  const t = env.BLOOMFORGE_TESTS ?? '';
  if (t !== '' && t !== 'full') throw new Error(`BLOOMFORGE_TESTS must be 'full' or unset, got '${t}'`);
  return t === 'full';
}

/**
 * What makes two presets the same hardware but for sizes, read from the preset's golden manifest
 * (generated/<name>.manifest.json): the `filter` value, the port names, the op codes, and each
 * parameter that is a choice rather than a size — a boolean, or a string without digits (IBF's
 * insert rule, spectral's algorithm, the key mix); a parameter holding sizes (a number, a
 * string with digits, an object such as a decision unit's table) counts by its presence only.
 */
export function pipelineShape(name: string): string {
  const m = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'generated', `${name}.manifest.json`), 'utf8')) as {
    ports: { name: string }[];
    opcodes: Record<string, number>;
    parameters: Record<string, unknown>;
  };
  const params = Object.entries(m.parameters)
    .filter(([k, v]) => k !== 'target' && typeof v !== 'number')
    .map(([k, v]) => [k, typeof v === 'boolean' || (typeof v === 'string' && !/\d/.test(v)) ? v : typeof v])
    .sort(([a], [b]) => String(a).localeCompare(String(b)));
  return JSON.stringify({ ports: m.ports.map((p) => p.name).sort(), ops: Object.keys(m.opcodes).sort(), params });
}

/**
 * How finely a tier's presets cover the hardware: `shape` — each `pipelineShape` (every filter
 * value, and within one the choices that change the hardware: a decision unit, spectral RM's
 * remove, IBF's insert rule, the SPN key mix); `filter` — each `filter` value only (the choices
 * within one are left to the full tier). Each target is covered in both.
 */
export type Cover = 'shape' | 'filter';

/**
 * Presets that cover every pipeline shape (or, with `by: 'filter'`, every filter value) and every
 * target at the least cost: the smallest (by its golden Verilog) of each kind, and each target's
 * smallest, sorted by name. The per-preset slow checks run on these in `make test` (on the rest of
 * the presets too in `make test-full`): what the full tier adds is the other sizes of the same
 * hardware (and, for a `filter` cover, the other choices within a filter), whose Verilog the
 * golden test pins and whose lint and simulation run in both tiers.
 */
export function coverPresets(filters: readonly Filter[] = presetFilters(), by: Cover = 'shape'): Filter[] {
  // The size of a preset's golden Verilog (generated/, equal to what its generator emits — the
  // golden test checks that in both tiers): no design is built to choose.
  const size = new Map(filters.map((f) => [f, fs.statSync(path.join(REPO_ROOT, 'generated', `${f.name}.v`)).size]));
  const pick = (key: (f: Filter) => string): Filter[] => {
    const best = new Map<string, Filter>();
    for (const f of filters) {
      const b = best.get(key(f));
      if (!b || size.get(f)! < size.get(b)!) best.set(key(f), f);
    }
    return [...best.values()];
  };
  const kind = by === 'shape' ? (f: Filter) => pipelineShape(f.name) : (f: Filter) => f.config.filter;
  const chosen = new Set([...pick(kind), ...pick((f) => f.config.target)]);
  return filters.filter((f) => chosen.has(f)).sort((a, b) => a.name.localeCompare(b.name));
}

/** The presets of a per-preset slow check in this tier, and a phrase saying which they are. */
export function slowTierPresets(
  env: NodeJS.ProcessEnv = process.env,
  by: Cover = 'shape',
): { filters: Filter[]; which: string } {
  const all = presetFilters();
  if (fullTier(env)) return { filters: all, which: `every preset (${all.length})` };
  const cover = coverPresets(all, by);
  const kind = by === 'shape' ? 'pipeline shape' : 'filter value';
  return {
    filters: cover,
    which: `${cover.length} of ${all.length} presets, each ${kind}'s and each target's smallest (all with make test-full)`,
  };
}
