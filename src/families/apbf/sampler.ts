/**
 * Random APBF/APBBF configs for fuzzing: every size from its smallest value (k = 1, l = 1,
 * g = 1, two-word columns) up, weighted towards designs that build and simulate in seconds.
 */
import type { Rng } from '../../util/rng.js';
import { draw, KEY_BITS } from '../sampler.js';

export function sampleApbf(rng: Rng): Record<string, unknown> {
  const d = draw(rng);
  const blocked = d.chance(0.3);
  const cfg: Record<string, unknown> = {
    name: `fuzz_apbf_${d.int(0, 999_999)}`,
    filter: blocked ? 'apbbf' : 'apbf',
    k: d.chance(0.2) ? 1 : d.int(1, 16),
    l: d.chance(0.2) ? 1 : d.int(1, 24),
    keyBits: d.pick(KEY_BITS),
    seed: d.int(0, 0xffffffff),
  };
  if (blocked) {
    const B = d.pow2(1, 9);
    cfg.blockBits = B;
    cfg.bitsPerBlock = d.pow2(0, Math.max(0, Math.log2(B) - 1));
  }
  const sized = d.int(0, 2);
  if (sized !== 1) cfg.sliceBits = d.pow2(blocked ? Math.log2(cfg.blockBits as number) + 1 : 1, 14);
  if (sized !== 0) cfg.generation = d.chance(0.2) ? 1 : d.int(1, 3000);
  if (d.chance(0.3)) cfg.tagBits = d.int(1, 16);
  if (d.chance(0.2)) cfg.wordBits = d.pow2(0, 6);
  if (d.chance(0.15)) cfg.spares = d.int(1, 8);
  return cfg;
}
