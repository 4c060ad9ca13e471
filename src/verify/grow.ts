/** A Uint32Array that grows by doubling (a row per cycle: the trace of a run), and the packed trace. */

export interface PackedTrace {
  /** Rows of the design's inputs (layout.inputWords words each). */
  stim: Uint32Array;
  /** Rows of the design's outputs (layout.outputWords words each). */
  out: Uint32Array;
  cycles: number;
}

export class Grow {
  buf: Uint32Array;
  length = 0;
  constructor(initial: number) {
    this.buf = new Uint32Array(Math.max(16, initial));
  }
  push(row: Uint32Array): void {
    const n = row.length;
    if (this.length + n > this.buf.length) {
      const next = new Uint32Array(Math.max(this.buf.length * 2, this.length + n));
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
    }
    // A row is a few words: a plain loop costs less than TypedArray.set's call per cycle.
    const buf = this.buf;
    const at = this.length;
    for (let i = 0; i < n; i++) buf[at + i] = row[i]!;
    this.length = at + n;
  }
  /** The rows pushed, without a copy (call once, at the end: the buffer is not written again). */
  done(): Uint32Array {
    return this.buf.subarray(0, this.length);
  }
}
