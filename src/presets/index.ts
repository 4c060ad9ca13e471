/** The preset filter configs (JSON files in each family's presets/ folder), by name. */
import fs from 'node:fs';
import path from 'node:path';

const FAMILIES = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'families');

function all(): Map<string, string> {
  const out = new Map<string, string>();
  for (const fam of fs.readdirSync(FAMILIES)) {
    const dir = path.join(FAMILIES, fam, 'presets');
    if (!fs.existsSync(dir)) continue;
    for (const f of fs.readdirSync(dir)) if (f.endsWith('.json')) out.set(f.slice(0, -5), path.join(dir, f));
  }
  return out;
}

export function presetNames(): string[] {
  return [...all().keys()].sort();
}

export function presetPath(name: string): string | null {
  return all().get(name) ?? null;
}

export function loadPreset(name: string): unknown {
  const p = presetPath(name);
  if (!p) throw new Error(`no preset '${name}'`);
  return JSON.parse(fs.readFileSync(p, 'utf8'));
}

/** Preset names whose `filter` is one of `filters`. */
export function presetNamesOf(...filters: string[]): string[] {
  return presetNames().filter((n) => filters.includes(String((loadPreset(n) as { filter?: unknown }).filter)));
}
