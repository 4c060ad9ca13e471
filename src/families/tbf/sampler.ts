/**
 * Random TBF/BTBF configs for fuzzing: every size from its smallest value (k = 1, two timers per
 * bank, window 1, two-bit timers) up, with and without the decision unit, weighted towards designs
 * that build and simulate in seconds.
 */
import type { Rng } from '../../util/rng.js';
import { draw, KEY_BITS } from '../sampler.js';

export function sampleTbf(rng: Rng): Record<string, unknown> {
  const d = draw(rng);
  const blocked = d.chance(0.5);
  const window = d.chance(0.15) ? d.int(1, 3) : d.int(1, 4000);
  const cfg: Record<string, unknown> = {
    name: `fuzz_tbf_${d.int(0, 999_999)}`,
    filter: blocked ? 'btbf' : 'tbf',
    k: d.chance(0.2) ? 1 : d.int(1, 8),
    timersPerBank: d.pow2(1, 13),
    timerBits: d.int(2, 16),
    window,
    keyBits: d.pick(KEY_BITS),
    seed: d.int(0, 0xffffffff),
  };
  if (blocked) cfg.blockSize = d.pow2(0, Math.min(8, Math.floor(Math.log2(window))));
  if (d.chance(0.3)) cfg.padding = d.int(0, 64);
  if (d.chance(0.3)) cfg.timersPerWord = d.pow2(0, 4);
  if (d.chance(0.3)) cfg.tagBits = d.int(1, 16);
  if (d.chance(0.25))
    cfg.decision = {
      distinct: d.chance(0.5)
        ? { kind: 'uniform', universe: d.int(2, 100_000) }
        : { kind: 'powerlaw', universe: d.int(2, 100_000) },
      ...(d.chance(0.5)
        ? { classes: Array.from({ length: d.int(1, 4) }, () => ({ px: (0.5 * d.int(1, 999)) / 1000 })) }
        : {}),
      ...(d.chance(0.3) ? { posteriorBits: d.int(4, 16) } : {}),
    };
  return cfg;
}
