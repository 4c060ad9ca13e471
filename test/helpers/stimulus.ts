import type { Design } from '../../src/ir/types.js';
import type { RandomStimulusOptions } from '../../sim/stimulus.js';

/** Random stimulus that also hits the interesting cases: equal operands, small shift amounts. */
export function biased(d: Design): RandomStimulusOptions {
  const a = d.inputs.find((p) => p.name === 'a');
  if (!a) return {};
  let lastA = 0n;
  return {
    drive: {
      a: (_c, rng) =>
        (lastA =
          rng.float() < 0.2
            ? 0n
            : rng.float() < 0.2
              ? (1n << BigInt(d.nets[a.net]!.width)) - 1n
              : rng.bits(d.nets[a.net]!.width)),
      b: (_c, rng) => (rng.float() < 0.3 ? lastA : rng.bits(d.nets[a.net]!.width)),
      s: (_c, rng) => BigInt(Math.floor(rng.float() * Math.min(255, d.nets[a.net]!.width + 3))),
    },
  };
}
