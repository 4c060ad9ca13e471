/**
 * TBF/BTBF planner: the config that keeps the standard false-positive rate (distinct-key stream,
 * ./analysis.ts) at or below `fp` for window `w` with the least memory — the hardware's bits
 * (two timer copies and the mark bits) — or, with a target, the fewest block RAMs that fit the
 * part. Candidates: k = 1..8 hashes, power-of-two banks, block sizes (BTBF), and the fewest timer
 * bits that leave room for the padding the expiry scan needs (the config derivation decides that,
 * so every candidate is a config `generate` accepts).
 */
import { checkIntent, choose, constraintsOf, type Evaluated, targetCheck } from '../../plan/choose.js';
import { ConfigError } from '../../util/errors.js';
import type { Candidate, FamilyPlanner, Fail, Plan, PlanConstraints } from '../types.js';
import { deriveTbf, tbfBankBlockRams } from './config.js';
import { analyzeTbf } from './summary.js';
import type { TbfDerived } from './types.js';

function candidates(k: PlanConstraints): TbfDerived[] {
  const out: TbfDerived[] = [];
  const blocks = k.filter === 'tbf' ? [1] : [2, 4, 8, 16, 32, 64, 128, 256].filter((B) => B <= k.window);
  for (const B of blocks) {
    for (let hashes = 1; hashes <= 8; hashes++) {
      for (let tpb = 64; tpb <= 1 << 20; tpb *= 2) {
        for (let tb = Math.ceil(Math.log2(Math.ceil(k.window / B) + 3)); tb <= 24; tb++) {
          try {
            out.push(
              deriveTbf({
                name: k.name ?? 'planned',
                filter: k.filter,
                k: hashes,
                timersPerBank: tpb,
                timerBits: tb,
                window: k.window,
                ...(k.filter === 'btbf' ? { blockSize: B } : {}),
                keyBits: k.keyBits ?? 64,
                seed: k.seed ?? 1,
                ...(k.target ? { target: k.target } : {}),
              }),
            );
            break; // the fewest timer bits that work
          } catch (e) {
            // this width cannot hold the padding the scan needs: try one more bit
            if (!(e instanceof ConfigError)) throw e;
          }
        }
      }
    }
  }
  return out;
}

function evaluate(c: TbfDerived, k: PlanConstraints): Evaluated<TbfDerived> {
  const a = analyzeTbf(c);
  const blockRams = c.k * tbfBankBlockRams(c.timersPerBank, c.timerBits, c.timersPerWord);
  const memoryBits = c.k * c.timersPerBank * (2 * (c.timerBits + 1) + 1);
  return {
    candidate: { config: c, fp: a.fp, memoryBits, blockRams, bitsPerElement: a.bitsPerElement },
    checks: [
      { name: 'fp', ok: a.fp <= k.fp, detail: `fp ${a.fp.toExponential(3)} > ${k.fp}` },
      targetCheck(blockRams, k),
    ],
    cost: k.target ? [blockRams, memoryBits, c.k] : [memoryBits, blockRams, c.k],
  };
}

export function planTbf(k: PlanConstraints): Plan<TbfDerived> {
  checkIntent(k);
  return choose(
    k,
    candidates(k).map((c) => evaluate(c, k)),
  );
}

/** The config JSON a TBF plan writes (accepted by `generate`); `base` keeps tagBits and the decision unit. */
export function tbfPlanConfig(p: Plan<TbfDerived>, base?: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const c = p.winner.config;
  const target = base?.target ?? p.constraints.target;
  return {
    name: c.name,
    filter: c.filter,
    k: c.k,
    timersPerBank: c.timersPerBank,
    timerBits: c.timerBits,
    window: c.window,
    ...(c.filter === 'btbf' ? { blockSize: c.blockSize } : {}),
    padding: c.padding,
    timersPerWord: c.timersPerWord,
    keyBits: c.keyBits,
    seed: c.seed,
    ...(base?.tagBits !== undefined ? { tagBits: base.tagBits } : {}),
    ...(base?.decision !== undefined ? { decision: base.decision } : {}),
    ...(target ? { target } : {}),
    description: `planned for window ${p.constraints.window}, standard fp <= ${p.constraints.fp}`,
  };
}

const SIZES = ['k', 'timersPerBank', 'timerBits', 'blockSize', 'padding', 'timersPerWord'] as const;

export const tbfPlanner: FamilyPlanner<TbfDerived> = {
  sizeBy: 'window',
  options: [],
  extra: () => ({}),
  intent(cfg: Readonly<Record<string, unknown>>, fail: Fail): PlanConstraints | null {
    if (cfg.fp === undefined) return null;
    const given = SIZES.find((f) => cfg[f] !== undefined);
    if (given) fail(given, 'with fp the planner chooses every size; leave it out');
    return constraintsOf(cfg, {});
  },
  plan: planTbf,
  configOf: tbfPlanConfig,
  record: (k) => ({ window: k.window, fp: k.fp }),
  figures(c: Candidate<TbfDerived>) {
    const a = analyzeTbf(c.config);
    return { window: c.config.window, slack: a.slack, npws: null, accessesFalse: a.accessesFalse };
  },
  shape(c: TbfDerived) {
    return {
      text: `k=${c.k} timers=${c.timersPerBank}x${c.timerBits}b${c.filter === 'btbf' ? ` B=${c.blockSize}` : ''} P=${c.padding}`,
      json: { k: c.k, timersPerBank: c.timersPerBank, timerBits: c.timerBits, blockSize: c.blockSize },
    };
  },
};
