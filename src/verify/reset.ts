/**
 * The reset injector: one-cycle pulses of `rst` (every other input low), at power-up or at random
 * mid-stream with a given probability per cycle.
 */
import type { Rng } from '../util/rng.js';
import type { Bench } from './bench.js';

export class ResetInjector {
  constructor(
    private readonly rng: Rng,
    /** Probability per cycle of a pulse while armed (0: none). */
    readonly rate: number,
    /** The rst input's word in the row (null: the design has none). */
    readonly rstAt: number | null,
  ) {}

  /** Whether to pulse in this cycle (a draw only when armed and the rate positive). */
  due(armed: boolean): boolean {
    return !!this.rate && armed && this.rng.float() < this.rate;
  }

  /** One reset cycle: nothing handed over, rst high; the row is left all low. */
  pulse(bench: Bench): void {
    bench.row.fill(0);
    bench.row[this.rstAt!] = 1;
    bench.plainCycle();
    bench.row[this.rstAt!] = 0;
  }
}
