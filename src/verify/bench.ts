/**
 * The clock of a stream run: the compiled simulator with its input and output rows, stepping one
 * cycle at a time and recording every cycle's rows when asked (for Verilator, Icarus and VCDs).
 */
import type { Design } from '../ir/types.js';
import { CompiledSim } from '../../sim/compiled.js';
import { Grow, type PackedTrace } from './grow.js';

export class Bench {
  readonly sim: CompiledSim;
  /** This cycle's inputs (written by the lanes and the reset injector) and settled outputs. */
  readonly row: Uint32Array;
  readonly out: Uint32Array;
  cycles = 0;
  private readonly stimRec: Grow | null;
  private readonly outRec: Grow | null;

  constructor(design: Design, o: { record?: boolean; poisonCollisions?: boolean } = {}) {
    this.sim = new CompiledSim(design, { poisonCollisions: o.poisonCollisions ?? true });
    const L = this.sim.layout;
    this.row = new Uint32Array(L.inputWords);
    this.out = new Uint32Array(L.outputWords);
    this.stimRec = o.record ? new Grow(L.inputWords * 1024) : null;
    this.outRec = o.record ? new Grow(L.outputWords * 1024) : null;
  }

  /** Applies the row and settles the outputs into `out` (recorded). */
  evaluate(): void {
    this.sim.pokeRow(this.row);
    this.sim.peekRow(this.out);
    this.stimRec?.push(this.row);
    this.outRec?.push(this.out);
  }

  /** The clock edge. */
  step(): void {
    this.sim.step();
    this.cycles++;
  }

  /** A cycle whose outputs are recorded but not inspected (a reset pulse, an idle tail). */
  plainCycle(): void {
    this.evaluate();
    this.step();
  }

  /** The recorded rows (null when not recording); call once, at the end. */
  trace(): PackedTrace | null {
    if (!this.stimRec || !this.outRec) return null;
    return { stim: this.stimRec.done(), out: this.outRec.done(), cycles: this.cycles };
  }
}
