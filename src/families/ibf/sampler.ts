/**
 * Random importance-aware Bloom filter configs for fuzzing: every size from its smallest value
 * (k = 1, max = 1, two-word banks, P = 0) to the edges the schema or the derivation refuses
 * (cells wider than a block RAM word, P above k·cellsPerWord, one cell per word with P > 0,
 * deletion schemes that are models only), weighted towards designs that build in seconds.
 */
import type { Rng } from '../../util/rng.js';
import { draw, KEY_BITS } from '../sampler.js';
import { DELETE_SCHEMES } from './config.js';

export function sampleIbf(rng: Rng): Record<string, unknown> {
  const d = draw(rng);
  const k = d.chance(0.2) ? 1 : d.int(1, 8);
  const max = d.chance(0.1) ? d.int(16, 70000) : d.int(1, 15);
  const cfg: Record<string, unknown> = {
    name: `fuzz_ibf_${d.int(0, 999_999)}`,
    filter: 'ibf',
    insert: d.pick(['imp', 'max'] as const),
    k,
    max,
    cells: d.pow2(1, 12),
    keyBits: d.pick(KEY_BITS),
    seed: d.int(0, 0xffffffff),
  };
  if (d.chance(0.1)) cfg.delete = d.pick(DELETE_SCHEMES);
  const C = d.chance(0.3) ? d.pow2(0, 5) : undefined;
  if (C !== undefined) cfg.cellsPerWord = C;
  cfg.P = d.chance(0.15) ? 0 : d.chance(0.1) ? d.int(1, 200) : d.int(1, 2 * k);
  if (d.chance(0.3)) cfg.tagBits = d.int(1, 16);
  return cfg;
}
