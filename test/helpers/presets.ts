/** Preset choices shared by tests that cannot afford every preset for every engine. */
import { loadConfig, presetNames } from '../../src/config/resolve.js';

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
