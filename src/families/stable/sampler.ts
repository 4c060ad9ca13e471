/**
 * Random Stable Bloom filter configs for fuzzing: every size from its smallest value (k = 1,
 * d = 1, two-word banks, P = 0) up to the edges the schema refuses (d wider than a block RAM
 * word, P above k·cellsPerWord, one cell per word with P > 0), weighted towards designs that
 * build and simulate in seconds.
 */
import type { Rng } from '../../util/rng.js';
import { draw, KEY_BITS } from '../sampler.js';

export function sampleStable(rng: Rng): Record<string, unknown> {
  const d = draw(rng);
  const k = d.chance(0.2) ? 1 : d.int(1, 8);
  const bits = d.chance(0.1) ? d.int(9, 20) : d.int(1, 4);
  const cfg: Record<string, unknown> = {
    name: `fuzz_stable_${d.int(0, 999_999)}`,
    filter: 'stable',
    k,
    d: bits,
    cells: d.pow2(1, 12),
    keyBits: d.pick(KEY_BITS),
    seed: d.int(0, 0xffffffff),
  };
  const C = d.chance(0.3) ? d.pow2(0, 5) : undefined;
  if (C !== undefined) cfg.cellsPerWord = C;
  cfg.P = d.chance(0.15) ? 0 : d.chance(0.1) ? d.int(1, 200) : d.int(1, 2 * k);
  if (d.chance(0.3)) cfg.tagBits = d.int(1, 16);
  return cfg;
}
