/**
 * Random A² configs for fuzzing: every size from its smallest value (k = 1, κ = 1, two-bit
 * banks) up, weighted towards designs that build and simulate in seconds. Many are refused (κ
 * too short to flush a half): the conformance test wants those refused naming a field.
 */
import type { Rng } from '../../util/rng.js';
import { draw, KEY_BITS } from '../sampler.js';

export function sampleA2(rng: Rng): Record<string, unknown> {
  const d = draw(rng);
  const cfg: Record<string, unknown> = {
    name: `fuzz_a2_${d.int(0, 999_999)}`,
    filter: 'a2',
    k: d.chance(0.2) ? 1 : d.int(1, 12),
    bankBits: d.pow2(1, 13),
    keyBits: d.pick(KEY_BITS),
    seed: d.int(0, 0xffffffff),
  };
  if (d.chance(0.6)) cfg.kappa = d.chance(0.15) ? 1 : d.int(1, 3000);
  if (d.chance(0.3)) cfg.tagBits = d.int(1, 16);
  if (d.chance(0.3)) cfg.wordBits = d.pow2(0, 6);
  return cfg;
}
