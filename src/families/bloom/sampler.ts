/**
 * Random basic/partitioned/blocked configs for fuzzing: every size from its smallest value
 * (k = 1, two-bit columns, one-bit words, blocks of two bits) up, the largest k (64), invalid
 * combinations the derivation must refuse naming the field (sizes that are not powers of two,
 * b >= B, k slices larger than m), and sometimes a planner intent (items and fp), weighted
 * towards designs that build and simulate in seconds.
 */
import type { Rng } from '../../util/rng.js';
import { draw, KEY_BITS } from '../sampler.js';

export function sampleBloom(rng: Rng): Record<string, unknown> {
  const d = draw(rng);
  const filter = d.pick(['basic', 'partitioned', 'blocked'] as const);
  const cfg: Record<string, unknown> = {
    name: `fuzz_bloom_${d.int(0, 999_999)}`,
    filter,
    keyBits: d.pick(KEY_BITS),
    seed: d.int(0, 0xffffffff),
  };
  const k = d.chance(0.2) ? 1 : d.chance(0.05) ? 64 : d.int(1, 12);
  if (d.chance(0.1)) {
    cfg.items = d.int(1, 3000);
    cfg.fp = 10 ** -(0.5 + (3 * d.int(0, 100)) / 100);
    return cfg;
  }
  if (filter === 'basic') {
    cfg.k = k;
    cfg.bits = d.chance(0.05) ? d.int(2, 5000) : d.pow2(1, 14);
  } else if (filter === 'partitioned') {
    cfg.k = k;
    if (d.chance(0.7)) cfg.sliceBits = d.pow2(1, 12);
    else cfg.bits = d.chance(0.5) ? k * d.pow2(1, 12) : d.int(1, 20_000);
  } else {
    const B = d.pow2(1, 10);
    cfg.blockBits = B;
    cfg.bitsPerBlock = d.pow2(0, Math.min(6, Math.log2(B)));
    cfg.bits = d.chance(0.05) ? d.int(2, 20_000) : d.pow2(Math.log2(B), 15);
  }
  if (d.chance(0.2)) cfg.items = d.int(1, 5000);
  if (d.chance(0.3)) cfg.tagBits = d.int(1, 16);
  if (d.chance(0.2)) cfg.wordBits = d.pow2(0, 6);
  return cfg;
}
