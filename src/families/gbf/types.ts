/** The Generalized Bloom filter family's types: the parameters the model needs and the derived config. */
import type { Target } from '../../device/index.js';
import type { FilterConfig } from '../types.js';

/**
 * Where the k0 + k1 hashes of an item point (Dautrich & Ravishankar §5; the GBF of Laufer et al.):
 * - `shared`: the paper's form, one array of m one-bit cells; hash j indexes the whole array
 *   (h_j(x) mod m), hashes 0..k0−1 reset their cell, k0..k0+k1−1 set theirs, and two hashes of one
 *   item may meet (a reset wins: §5.1).
 * - `partitioned`: the hardware's, K = k0 + k1 banks of m/K cells, one hash per bank, so the K
 *   cells of an item never collide and every bank is read and written once per op. Which banks
 *   reset is drawn per item: a rotation ρ(x) ∈ [0, K) from a 16-bit hash v, ρ = ⌊v·K/2^16⌋, and
 *   bank j resets iff (j − ρ) mod K < k0. (Fixed roles would make the k0 banks all-zero and the
 *   k1 banks all-one for good: every cell must see both kinds of write.)
 */
export type GbfLayout = 'partitioned' | 'shared';

export interface GbfParams {
  /** Hashes that reset (write 0) and set (write 1) a cell. */
  k0: number;
  k1: number;
  /** Cells in all (partitioned: a multiple of k0 + k1, m/(k0 + k1) per bank). */
  m: number;
  layout: GbfLayout;
  keyBits: number;
  seed: number;
}

/** A prior class of the decision unit: the item probability p_x and the window w it answers for. */
export interface GbfClass {
  name: string;
  px: number;
  window: number;
}

export interface GbfDecisionDerived {
  classes: GbfClass[];
  posteriorBits: number;
}

export interface GbfDerived extends GbfParams, FilterConfig {
  name: string;
  filter: 'gbf';
  layout: 'partitioned';
  /** Cells per bank (a power of two), block RAM word width and words per bank. */
  cellsPerBank: number;
  wordBits: number;
  wordsPerBank: number;
  /**
   * The sliding window the filter is used for (§5: the GBF itself has none; it sets the
   * analytics' window and the decision unit's default window).
   */
  window: number;
  tagBits: number;
  target: Target;
  decision: GbfDecisionDerived | null;
  /**
   * A lane design's shard (src/lanes/, ./lanes.ts): no response queue and no out_ready — the
   * response leaves the cycle it is formed (one cycle earlier), and the dispatcher takes it.
   */
  direct?: boolean;
}
