/**
 * Random bitwise configs for fuzzing: every size from its smallest value (one level, w = 1,
 * k = 1, two counters per bank) up to the schema's edges (8 levels, 16 hashes, widths up to the
 * word, Σ w up to 64, so some are refused naming the field), weighted towards designs that build
 * and simulate in seconds.
 */
import type { Rng } from '../../util/rng.js';
import { draw, KEY_BITS } from '../sampler.js';

export function sampleBitwise(rng: Rng): Record<string, unknown> {
  const d = draw(rng);
  const l = d.chance(0.2) ? 1 : d.int(1, d.chance(0.1) ? 8 : 4);
  const wordBits = d.chance(0.3) ? d.pick([1, 2, 3, 4, 8, 12, 16]) : undefined;
  const levels = Array.from({ length: l }, () => {
    const k = d.chance(0.2) ? 1 : d.int(1, d.chance(0.1) ? 16 : 4);
    const width = d.chance(0.2) ? 1 : d.chance(0.05) ? d.int(1, 32) : d.int(1, 8);
    // Mostly a power of two per bank; sometimes not (refused, naming the field).
    const cells = k * d.pow2(1, 9) + (d.chance(0.05) ? 1 : 0);
    return { cells, width, k };
  });
  const cfg: Record<string, unknown> = {
    name: `fuzz_bitwise_${d.int(0, 999_999)}`,
    filter: 'bitwise',
    levels,
    keyBits: d.pick(KEY_BITS),
    seed: d.int(0, 0xffffffff),
  };
  if (wordBits !== undefined) cfg.wordBits = wordBits;
  if (d.chance(0.2)) cfg.items = d.int(1, 2000);
  if (d.chance(0.3)) cfg.tagBits = d.int(1, 16);
  return cfg;
}
