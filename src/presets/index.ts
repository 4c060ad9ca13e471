/** The preset filter configs (JSON files beside this one), by name. */
import fs from 'node:fs';
import path from 'node:path';

const DIR = path.dirname(new URL(import.meta.url).pathname);

export function presetNames(): string[] {
  return fs
    .readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
    .sort();
}

export function presetPath(name: string): string | null {
  const p = path.join(DIR, `${name}.json`);
  return fs.existsSync(p) ? p : null;
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
