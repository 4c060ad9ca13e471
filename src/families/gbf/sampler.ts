/**
 * Random GBF configs for fuzzing: every size from its smallest value (k0 = k1 = 1, two cells per
 * bank, one-bit words, window 1) up, with and without the decision unit, weighted towards designs
 * that build and simulate in seconds.
 */
import type { Rng } from '../../util/rng.js';
import { draw, KEY_BITS } from '../sampler.js';

export function sampleGbf(rng: Rng): Record<string, unknown> {
  const d = draw(rng);
  const cellsPerBank = d.pow2(1, 12);
  const cfg: Record<string, unknown> = {
    name: `fuzz_gbf_${d.int(0, 999_999)}`,
    filter: 'gbf',
    k0: d.chance(0.2) ? 1 : d.int(1, 10),
    k1: d.chance(0.2) ? 1 : d.int(1, 10),
    cellsPerBank,
    window: d.chance(0.15) ? d.int(1, 3) : d.int(1, 20_000),
    keyBits: d.pick(KEY_BITS),
    seed: d.int(0, 0xffffffff),
  };
  if (d.chance(0.3)) cfg.wordBits = d.pow2(0, 7);
  if (d.chance(0.3)) cfg.tagBits = d.int(1, 16);
  if (d.chance(0.3))
    cfg.decision = {
      classes: Array.from({ length: d.int(1, 5) }, () => ({
        px: (0.5 * d.int(1, 999)) / 1000,
        ...(d.chance(0.5) ? { window: d.int(1, 50_000) } : {}),
      })),
      ...(d.chance(0.3) ? { posteriorBits: d.int(4, 16) } : {}),
    };
  return cfg;
}
