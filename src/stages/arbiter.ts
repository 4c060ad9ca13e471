/**
 * Stage: a rotating priority order among n requesters (the lane wrapper's dispatcher,
 * src/lanes/rtl.ts), kept as a register per pair, `<name>_<j>_<i>` (j < i: j comes before i), so
 * the grants read the order straight from registers.
 *
 * The order starts as 0, 1, …, n − 1 after reset; in a cycle with `advance` high it rotates by
 * one (j comes before i next when j − 1 came before i − 1 now), so every requester comes first
 * once in every n advancing cycles, however those cycles fall among others.
 *
 * `before(j, i)`: j comes before i this cycle (j ≠ i).
 * `first(req)`: for each requester, whether it requests and no requester before it does: one-hot,
 *   or 0 when none requests.
 */
import type { ModuleBuilder, Reg, Sig } from '../dsl/module.js';
import { anyOf } from './oneHot.js';

export interface RotatingPriority {
  /** j comes before i in this cycle's order (j ≠ i). */
  before(j: number, i: number): Sig;
  /** The first of the requesters in this cycle's order: one-hot or 0. */
  first(req: Sig[]): Sig[];
}

export function rotatingPriority(m: ModuleBuilder, opts: { n: number; advance: Sig; name?: string }): RotatingPriority {
  const { n, advance } = opts;
  const name = opts.name ?? 'prec';
  const reg = new Map<string, Reg>();
  for (let i = 0; i < n; i++)
    for (let j = 0; j < i; j++) reg.set(`${j}_${i}`, m.reg(`${name}_${j}_${i}`, 1, { reset: 1 }));
  const before = (j: number, i: number): Sig => (j < i ? reg.get(`${j}_${i}`)! : reg.get(`${i}_${j}`)!.not());
  for (const [pair, r] of reg) {
    const [j, i] = pair.split('_').map(Number) as [number, number];
    r.next(m.mux(advance, before((j - 1 + n) % n, (i - 1 + n) % n), r));
  }
  const first = (req: Sig[]): Sig[] =>
    req.map((r, i) =>
      r.and(
        anyOf(
          m,
          req.flatMap((x, j) => (j === i ? [] : [x.and(before(j, i))])),
        ).not(),
      ),
    );
  return { before, first };
}
