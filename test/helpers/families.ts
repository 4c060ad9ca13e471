/** Test helpers: presets and configs as configured filters of their family. */
import { loadConfig, presetNames } from '../../src/config/resolve.js';
import { familyOf } from '../../src/families/index.js';
import { Filter } from '../../src/families/filter.js';
import type { FilterConfig } from '../../src/families/types.js';
import { drive, type DriveOptions, type DriveResult } from '../../src/verify/stream.js';

/** A derived config as a configured filter of its family. */
export function filterOf<C extends FilterConfig>(c: C): Filter<C> {
  const family = familyOf(c.filter);
  if (!family) throw new Error(`no family for filter '${c.filter}'`);
  return new Filter(family, c) as unknown as Filter<C>;
}

/** A preset's derived config (typed by the caller). */
export function presetConfig<C extends FilterConfig>(name: string): C {
  return loadConfig(name).config as C;
}

/** The names of the presets of one family. */
export function presetsOf(familyId: string): string[] {
  return presetNames().filter((n) => loadConfig(n).family.id === familyId);
}

/** The stream driver on a derived config. */
export function driveConfig(c: FilterConfig, o: DriveOptions): DriveResult {
  return drive(filterOf(c), o);
}
