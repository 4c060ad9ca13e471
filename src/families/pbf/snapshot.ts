/**
 * Control-port snapshots into the persistent filters' model (SBF, PBF-2), and what the control
 * port shows of them: the aging events are the time steps (inserts that move `now` forward: every
 * edge at which `now` rises), the occupancy estimate is `now` itself — the time of the last
 * accepted insert, 0 after a clear: the part of the horizon [0, T) the filter has used (an insert
 * at a time before it is refused, so the filter is full when it reaches T − 1).
 */
import type { SnapshotView } from '../types.js';
import { PbfStreamModel } from './stream.js';
import { memoryName } from './rtl.js';
import type { PbfDerived } from './types.js';

/**
 * The model in a control-port snapshot's state (drained pipeline): every level's k slices from
 * their block RAM words (bit i of word a: slice bit a·W + i), `now` from the register of that
 * name. The model's count of time steps starts at 0.
 */
export function pbfFromSnapshot(c: PbfDerived, s: SnapshotView): PbfStreamModel {
  const sm = new PbfStreamModel(c);
  const W = c.wordBits;
  for (const lv of sm.model.levels)
    for (let j = 0; j < lv.spec.k; j++)
      for (let a = 0; a < lv.spec.sliceBits / W; a++) {
        const w = s.read(memoryName(lv.spec.height, j), a);
        const base = j * lv.spec.sliceBits + a * W;
        for (let i = 0; i < W; i++) lv.bits[base + i] = Number((w >> BigInt(i)) & 1n);
      }
  sm.model.now = Number(s.reg('now'));
  return sm;
}

/** FilterFamily.control: time steps and `now` (see the header). */
export function pbfControl(): { events: { reg: string; rises: true }; occupancy: string } {
  return { events: { reg: 'now', rises: true }, occupancy: 'now' };
}
