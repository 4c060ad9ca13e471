/**
 * What only an N-lane run needs: the sequence numbers that put the lanes' ops in one linear order
 * (unwrapped from their SEQ_BITS), and the sharded model replaying that order to check every answer,
 * the scan steps and the block RAMs.
 */
import type { LaneFilter } from '../lanes/filter.js';
import { SEQ_BITS } from '../lanes/rtl.js';
import type { ResponseFields, StreamRequest } from '../families/types.js';
import type { CompiledSim } from '../../sim/compiled.js';

/** An answered op with its place in the linear order and its reported scan step. */
export interface Answered {
  seq: number;
  lane: number;
  req: StreamRequest;
  got: ResponseFields;
  scan: boolean;
}

/** Sequence numbers as reported (SEQ_BITS wide) to full numbers. */
export class SeqUnwrapper {
  private maxSeq = -1;
  private readonly wrap = 2 ** SEQ_BITS;

  /** The full number closest to the largest seen (ops in flight are << 2^15 apart). */
  unwrap(reported: number): number {
    const wrap = this.wrap;
    const base = this.maxSeq < 0 ? 0 : this.maxSeq;
    let seq = base - (((base % wrap) + wrap) % wrap) + reported;
    if (seq - base > wrap / 2) seq -= wrap;
    else if (base - seq > wrap / 2) seq += wrap;
    this.maxSeq = Math.max(this.maxSeq, seq);
    return seq;
  }
}

export interface ReplayResult {
  agingEvents: number;
  memory: { checked: number; unit: string; count: number; mismatches: string[] };
}

/**
 * Sorts the answered ops by sequence number (they must number 0..n−1, no gap or repeat) and
 * replays them on the sharded model: every answer, the scan steps and at the end the block RAMs.
 */
export function replayLinearOrder(
  lf: LaneFilter,
  answered: Answered[],
  sim: CompiledSim,
  mismatch: (s: string) => void,
): ReplayResult {
  answered.sort((a, b) => a.seq - b.seq);
  answered.forEach((a, n) => {
    if (a.seq !== n) mismatch(`sequence numbers: position ${n} holds seq ${a.seq} (a gap or a repeat)`);
  });
  const model = lf.model();
  model.externalScan = true;
  for (const a of answered) {
    const want = model.apply(a.req);
    if (a.scan) model.scan();
    const bad = Object.keys(want).filter((k) => want[k] !== a.got[k]);
    if (bad.length)
      mismatch(
        `seq ${a.seq} (lane ${a.lane}, ${a.req.op} key 0x${a.req.key.toString(16)} tag ${a.req.tag}): ` +
          bad.map((k) => `${k} expected ${want[k]}, got ${a.got[k]}`).join(', '),
      );
  }
  model.finish();
  for (const x of model.problems) mismatch(`scan steps: ${x}`);
  const mem = model.compareMemories((name, addr) => sim.readMemory(name, addr));
  if (mem.count) mismatch(`memories: ${mem.count} ${mem.unit} differ from the model (${mem.mismatches[0]})`);
  return {
    agingEvents: model.agingEvents(),
    memory: { checked: mem.checked, unit: mem.unit, count: mem.count, mismatches: mem.mismatches },
  };
}
