/**
 * Random persistent-filter configs for fuzzing: horizons from 2 to 4096 (the edges: T = 2, one
 * level of one bit of time), k from 1 to 16 (and 17, refused), slices from 2 bits up, equal or per
 * level sizes, sometimes invalid (not a power of two, the wrong number of levels, pbf1), weighted
 * towards designs that build and simulate in seconds.
 */
import type { Rng } from '../../util/rng.js';
import { draw, KEY_BITS } from '../sampler.js';

export function samplePbf(rng: Rng): Record<string, unknown> {
  const d = draw(rng);
  const filter = d.chance(0.05) ? 'pbf1' : d.pick(['pbf2', 'sbf'] as const);
  const D = d.chance(0.2) ? 1 : d.int(1, filter === 'sbf' ? 8 : 6);
  const cfg: Record<string, unknown> = {
    name: `fuzz_pbf_${d.int(0, 999_999)}`,
    filter,
    keyBits: d.pick(KEY_BITS.filter((k) => k <= 64)),
    seed: d.int(0, 0xffffffff),
    horizon: d.chance(0.05) ? d.int(2, 100) : 2 ** D,
    k: d.chance(0.03) ? 17 : d.int(1, 3),
  };
  const slice = (): number => (d.chance(0.05) ? d.int(2, 300) : d.pow2(1, 9));
  if (filter === 'pbf2' && d.chance(0.3))
    cfg.levelSliceBits = Array.from({ length: D + (d.chance(0.1) ? 2 : 1) }, slice);
  else cfg.sliceBits = slice();
  if (d.chance(0.3)) cfg.tagBits = d.int(1, 12);
  if (d.chance(0.2)) cfg.wordBits = d.pow2(0, 4);
  return cfg;
}
