/**
 * The registry: every filter family, one line each. Everything that iterates families — the CLI,
 * `make generate`, the bench, the experiments and the conformance tests — reads this list.
 */
import fs from 'node:fs';
import path from 'node:path';
import { a2Family } from './a2/index.js';
import { apbfFamily } from './apbf/index.js';
import { bitwiseFamily } from './bitwise/index.js';
import { bloomFamily } from './bloom/index.js';
import { countingFamily } from './counting/index.js';
import { gbfFamily } from './gbf/index.js';
import { ibfFamily } from './ibf/index.js';
import { pbfFamily } from './pbf/index.js';
import { stableFamily } from './stable/index.js';
import { tbfFamily } from './tbf/index.js';
import type { FilterFamily } from './types.js';

// One line per family (one per line, so families added side by side merge cleanly).
export const FAMILIES: readonly FilterFamily[] = [
  apbfFamily,
  tbfFamily,
  a2Family,
  stableFamily,
  bloomFamily,
  countingFamily,
  bitwiseFamily,
  gbfFamily,
  pbfFamily,
  ibfFamily,
] as readonly FilterFamily[];

/** The family a config's `filter` value belongs to. */
export function familyOf(filter: string): FilterFamily | undefined {
  return FAMILIES.find((f) => f.filters.includes(filter));
}

/** Every `filter` value some family accepts. */
export function filterNames(): string[] {
  return FAMILIES.flatMap((f) => f.filters);
}

export interface PresetEntry {
  name: string;
  family: FilterFamily;
  file: string;
  /** An N-lane preset (its JSON has `lanes`): `bloomforge lanes …` and src/lanes/ take it. */
  lanes: boolean;
}

let PRESETS: PresetEntry[] | null = null;

/** Every family's presets (JSON files in its presets/ folder), sorted by name; read once. */
export function presets(): PresetEntry[] {
  if (PRESETS) return PRESETS;
  const out: PresetEntry[] = [];
  for (const family of FAMILIES) {
    if (!fs.existsSync(family.presetsDir)) continue;
    for (const f of fs.readdirSync(family.presetsDir).sort())
      if (f.endsWith('.json')) {
        const file = path.join(family.presetsDir, f);
        let lanes = false;
        try {
          const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
          lanes = typeof raw === 'object' && raw !== null && 'lanes' in raw;
        } catch {
          // An unreadable preset is reported by whoever loads it (readConfig names the file).
        }
        out.push({ name: f.slice(0, -5), family, file, lanes });
      }
  }
  PRESETS = out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return PRESETS;
}

export function presetEntry(name: string): PresetEntry | undefined {
  return presets().find((p) => p.name === name);
}
