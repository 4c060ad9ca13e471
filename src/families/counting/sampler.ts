/**
 * Random counting/spectral configs for fuzzing: every size from its smallest value (k = 1, w = 1,
 * two-word banks) up to the widest counters and words of each target, every algorithm, with and
 * without remove (MI with remove is refused naming the field), weighted towards designs that
 * build and simulate in seconds.
 */
import type { Rng } from '../../util/rng.js';
import { draw, KEY_BITS } from '../sampler.js';

export function sampleCounting(rng: Rng): Record<string, unknown> {
  const d = draw(rng);
  const spectral = d.chance(0.6);
  const cfg: Record<string, unknown> = {
    name: `fuzz_counting_${d.int(0, 999_999)}`,
    filter: spectral ? 'spectral' : 'counting',
    k: d.chance(0.2) ? 1 : d.int(1, 8),
    counterBits: d.chance(0.15) ? 1 : d.chance(0.1) ? d.int(16, 32) : d.int(1, 8),
    cellsPerBank: d.pow2(1, 12),
    keyBits: d.pick(KEY_BITS),
    seed: d.int(0, 0xffffffff),
  };
  if (spectral) cfg.algorithm = d.pick(['ms', 'mi', 'rm']);
  if (cfg.algorithm === 'rm' && d.chance(0.4)) cfg.secondaryCellsPerBank = d.pow2(1, 12);
  if (d.chance(0.4)) cfg.remove = d.chance(0.5);
  if (d.chance(0.3)) cfg.wordBits = d.int(1, 72);
  if (d.chance(0.2)) cfg.target = d.pick(['ice40-hx8k', 'ecp5', 'xilinx']);
  if (d.chance(0.3)) cfg.tagBits = d.int(1, 16);
  if (d.chance(0.2)) cfg.items = d.int(1, 5000);
  return cfg;
}
