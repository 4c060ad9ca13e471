/**
 * The two baselines of Dautrich & Ravishankar §6, shared by every family's experiments:
 *
 * - Prior only: no filter state at all; the sliding-window posterior is the prior
 *   P(I_x < w) = 1 − (1 − p_x)^w (Eq. 5 with α = 0, β = w, continuous stream).
 * - The Simple Buffer (§6.2): the bph-bit hashes of the last δ ≤ w inserted items, queried by a
 *   linear scan; R_x = 1 iff x's hash is in the buffer. Standard answer: Pos iff R_x = 1.
 *   Inferential answer: the posterior of Eq. 36,
 *     R_x = 0:  1 − (1 − p_x)^(w − δ)
 *     R_x = 1:  1 − (1 − p_x)^w / ( (1 − (1 − p_x)^δ) / (1 − (1 − 2^−bph)^D(δ)) + (1 − p_x)^δ ),
 *   where D(δ) is the expected number of distinct items among δ insertions (§2.5).
 *   With space w·bpi bits, δ = ⌊w·bpi/bph⌋ (at most w).
 */

/** P(I_x < w) from the prior alone (continuous stream). */
export function priorPosterior(px: number, w: number): number {
  return -Math.expm1(w * Math.log1p(-px));
}

/** Eq. 36: P(I_x < w | R_x) of the Simple Buffer; `distinct` = D(δ). */
export function bufferPosterior(
  px: number,
  w: number,
  delta: number,
  bph: number,
  distinct: number,
  found: boolean,
): number {
  const lq = Math.log1p(-px);
  if (!found) return -Math.expm1((w - delta) * lq);
  // 1 − (1 − 2^−bph)^D(δ): some distinct item of the buffer has x's hash.
  const collide = -Math.expm1(distinct * Math.log1p(-(2 ** -bph)));
  return 1 - Math.exp(w * lq) / (-Math.expm1(delta * lq) / collide + Math.exp(delta * lq));
}

/** Items of the buffer for a space budget: δ = ⌊w·bpi/bph⌋, at most w. */
export function bufferLength(w: number, bpi: number, bph: number): number {
  return Math.min(w, Math.floor((w * bpi) / bph));
}

/** The Simple Buffer itself: a ring of the last δ hashes, queried by a linear scan (the reference). */
export class SimpleBuffer {
  private readonly ring: Uint32Array;
  private next = 0;
  private size = 0;

  constructor(
    readonly delta: number,
    readonly bph: number,
  ) {
    if (!Number.isInteger(delta) || delta < 1) throw new RangeError('δ must be a positive integer');
    if (!Number.isInteger(bph) || bph < 1 || bph > 32) throw new RangeError('bph must be 1..32');
    this.ring = new Uint32Array(delta);
  }

  /** The item's bph-bit hash, from a 32-bit hash of it (its top bph bits). */
  hashOf(h32: number): number {
    return this.bph === 32 ? h32 >>> 0 : h32 >>> (32 - this.bph);
  }

  /** R_x: whether the hash is among the last δ inserted (a linear scan). */
  has(hash: number): boolean {
    for (let i = 0; i < this.size; i++) if (this.ring[i] === hash) return true;
    return false;
  }

  insert(hash: number): void {
    this.ring[this.next] = hash;
    this.next = this.next + 1 === this.delta ? 0 : this.next + 1;
    if (this.size < this.delta) this.size++;
  }
}
