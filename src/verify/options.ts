/** The options and the result of a one-lane stream run (see stream.ts). */
import type { Filter } from '../families/filter.js';
import type { DriveHooks, StreamModel } from '../families/types.js';
import type { Design } from '../ir/types.js';
import type { Workload } from '../model/workloads.js';
import type { CompiledSim } from '../../sim/compiled.js';
import type { PackedTrace } from './grow.js';
import type { WindowCounts } from './oracle.js';

export interface DriveOptions {
  ops: number;
  seed: number;
  /** Probability that out_ready is low in a cycle. */
  backpressure?: number;
  /** Probability that in_valid is low in a cycle when a request could be sent (an idle cycle). */
  idle?: number;
  /** Relative weights of the ops (default: the family's verification mix). */
  mix?: Record<string, number>;
  /** Default: uniform over 4 · window keys (4096 without a window). */
  workload?: Workload;
  /** Record the packed stimulus and outputs of every cycle. */
  record?: boolean;
  /** Check answers against the exact window (no op that ages without inserting in the mix). */
  exactWindow?: boolean;
  /** A different build of the same family (e.g. with forwarding off, to show the checks catch it). */
  design?: Design;
  hooks?: DriveHooks;
  /**
   * Probability per cycle of a one-cycle reset pulse (`rst` high, in_valid and out_ready low)
   * once the power-up sweep is done. Every response outstanding at the pulse is lost (the
   * pipeline is cleared): counted in `lostToReset`, and a response for one of them afterwards is a
   * mismatch. The model and the exact window start again empty, as the hardware does.
   */
  resetRate?: number;
  /** Called every PROGRESS_CYCLES cycles and at the end. */
  onProgress?: (p: { accepted: number; responses: number; cycles: number }) => void;
}

export interface ResponseMismatch {
  /** Index of the request in the stream (-1: a response nobody asked for). */
  op: number;
  kind: string;
  expected: string;
  got: string;
}

export interface DriveResult {
  design: Design;
  sim: CompiledSim;
  model: StreamModel;
  /** Requests accepted (= the ops asked for when finished). */
  ops: number;
  cycles: number;
  /** Cycles with a request waiting and in_ready low, after the power-up sweep. */
  stallCycles: number;
  /** Cycles of the first and the last accepted request. */
  firstAccept: number;
  lastAccept: number;
  responses: number;
  /** Every request accepted and answered, and the pipeline drained. */
  finished: boolean;
  stopReason: string | null;
  /** The first few response mismatches; `mismatchCount` counts all. */
  mismatches: ResponseMismatch[];
  mismatchCount: number;
  window: WindowCounts | null;
  agingEvents: number;
  /** Reset pulses given mid-stream (resetRate), and the accepted requests they cut off unanswered. */
  resets: number;
  lostToReset: number;
  trace: PackedTrace | null;
}

/** Keys a stream should range over to exercise the filter: its window, else its capacity, else 1024. */
export function keysOf(f: Filter): number {
  const w = f.window();
  if (w !== null && Number.isFinite(w)) return w;
  return f.capacity() ?? 1024;
}

/** Cycles between progress reports (and event-loop turns for the async driver). */
export const PROGRESS_CYCLES = 16384;
