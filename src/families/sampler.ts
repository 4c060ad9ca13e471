/** Helpers for the families' config samplers (random configs for fuzzing). */
import type { Rng } from '../util/rng.js';

export interface Draw {
  /** Uniform integer in lo..hi. */
  int(lo: number, hi: number): number;
  /** One of the values. */
  pick<T>(xs: readonly T[]): T;
  /** True with probability p. */
  chance(p: number): boolean;
  /** 2^e for e uniform in lo..hi. */
  pow2(lo: number, hi: number): number;
}

export function draw(rng: Rng): Draw {
  const int = (lo: number, hi: number): number => lo + Math.floor(rng.float() * (hi - lo + 1));
  return {
    int,
    pick: (xs) => xs[int(0, xs.length - 1)]!,
    chance: (p) => rng.float() < p,
    pow2: (lo, hi) => 2 ** int(lo, hi),
  };
}

/** Key widths worth trying: the edges, the common ones and a few odd ones. */
export const KEY_BITS = [8, 9, 16, 31, 32, 33, 48, 64, 100, 128, 256, 512] as const;
