import { describe, expect, it } from 'vitest';
import { device } from '../../../src/device/index.js';
import { standardFalsePositiveRate } from '../../../src/families/tbf/analysis.js';
import { planTbf, tbfPlanConfig } from '../../../src/families/tbf/planner.js';
import type { PlanConstraints } from '../../../src/families/types.js';
import { ConfigError } from '../../../src/util/errors.js';
import { deriveTbf, tbfBankBlockRams } from '../../../src/families/tbf/config.js';
import { Rng } from '../../../src/util/rng.js';

describe('TBF/BTBF planner', () => {
  it('plans always satisfy their constraints, recomputed from the written config (random constraints)', () => {
    const rng = new Rng(77);
    let planned = 0;
    let impossible = 0;
    for (let i = 0; i < 14; i++) {
      const k: PlanConstraints = {
        extra: {},
        filter: i % 2 ? 'btbf' : 'tbf',
        window: 100 + Math.floor(rng.float() * 3000),
        fp: 10 ** -(1 + rng.float() * 2.5),
        ...(rng.float() < 0.4 ? { target: 'ice40-hx8k' as const } : {}),
      };
      try {
        const p = planTbf(k);
        const c = deriveTbf(tbfPlanConfig(p));
        expect(c.window).toBe(k.window);
        const fp = standardFalsePositiveRate({
          k: c.k,
          timersPerHash: c.timersPerBank,
          layout: 'partitioned',
          window: c.window,
          blockSize: c.blockSize,
        });
        expect(fp).toBeLessThanOrEqual(k.fp);
        if (k.target)
          expect(c.k * tbfBankBlockRams(c.timersPerBank, c.timerBits, c.timersPerWord)).toBeLessThanOrEqual(
            device(k.target).capacity!.brams,
          );
        planned++;
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        expect((e as Error).message).toMatch(/--(fp|target) binds/);
        impossible++;
      }
    }
    expect(planned).toBeGreaterThan(5);
    expect(planned + impossible).toBe(14);
  });

  it('picks a minimal shape: the winner with half the timers per bank misses the fp goal', () => {
    const p = planTbf({ filter: 'btbf', window: 1000, fp: 0.01, extra: {} });
    const c = p.winner.config;
    expect(p.winner.rejected).toBeNull();
    expect(p.winner.fp).toBeLessThanOrEqual(0.01);
    const fpHalf = standardFalsePositiveRate({
      k: c.k,
      timersPerHash: c.timersPerBank / 2,
      layout: 'partitioned',
      window: c.window,
      blockSize: c.blockSize,
    });
    expect(fpHalf).toBeGreaterThan(0.01);
  });

  it('names the binding constraint when nothing fits', () => {
    expect(() => planTbf({ filter: 'btbf', window: 100_000, fp: 1e-4, target: 'ice40-hx8k', extra: {} })).toThrow(
      /no btbf meets the constraints: --target binds/,
    );
  });
});
