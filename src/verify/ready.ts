/**
 * Random valid/ready patterns: out_ready held low by back-pressure, and in_valid held low by idle
 * cycles (the request side's gaps), each low with a given probability per cycle.
 */
import type { Rng } from '../util/rng.js';

export class ReadyRandomiser {
  constructor(
    private readonly rng: Rng,
    /** Probability that the signal is low in a cycle. */
    readonly rate: number,
    /**
     * Draw every cycle even at rate 0. The one-lane driver draws only when the rate is positive,
     * the lane driver every cycle; a seed's stimulus depends on which, so each keeps its own.
     */
    private readonly drawAtZero = false,
  ) {}

  /** Whether the signal is high in this cycle. */
  ready(): boolean {
    if (!this.drawAtZero && !(this.rate > 0)) return true;
    return !(this.rng.float() < this.rate);
  }
}
