/**
 * TBF/BTBF pipelines beyond the conformance suite (test/conformance: goldens, lint, synthesis,
 * model ≡ simulator ≡ Verilator, zero-stall wraps of T+): the presets cover TBF, BTBF and the
 * decision unit, and the checks are not vacuous — a pipeline without forwarding or without the
 * expiry scanner is caught.
 */
import { describe, expect, it } from 'vitest';
import { buildTbf } from '../../../src/families/tbf/rtl.js';
import { deriveTbf } from '../../../src/families/tbf/config.js';
import type { TbfDerived } from '../../../src/families/tbf/types.js';
import type { DriveResult } from '../../../src/verify/stream.js';
import { driveConfig, presetConfig, presetsOf } from '../../helpers/families.js';
import { pipelineShape } from '../../helpers/presets.js';

const timers = (r: DriveResult) => r.model.compareMemories((name, addr) => r.sim.readMemory(name, addr));

describe('TBF/BTBF pipeline behaviour', () => {
  it('there are TBF, BTBF and decision-unit presets', () => {
    const cs = presetsOf('tbf').map((n) => presetConfig<TbfDerived>(n));
    expect(cs.some((c) => c.filter === 'tbf')).toBe(true);
    expect(cs.some((c) => c.filter === 'btbf')).toBe(true);
    expect(cs.some((c) => c.decision !== null)).toBe(true);
  });

  const small = deriveTbf({
    name: 'small_btbf',
    filter: 'btbf',
    k: 3,
    timersPerBank: 256,
    timerBits: 8,
    // w mod B = 3: the expiry threshold ⌈(w − b)/B⌉ + 1 drops by one once b >= 3.
    window: 203,
    blockSize: 8,
    timersPerWord: 4,
    keyBits: 32,
    seed: 3,
  });

  it('the correct pipeline passes the same run the broken ones fail', () => {
    const r = driveConfig(small, { ops: 20_000, seed: 1 });
    expect(r.finished).toBe(true);
    expect(r.mismatches).toEqual([]);
    expect(timers(r).mismatches).toEqual([]);
  });

  it('without forwarding, back-to-back hazards give wrong answers (caught)', () => {
    const r = driveConfig(small, { ops: 20_000, seed: 1, design: buildTbf(small, { forwarding: false }) });
    expect(r.mismatchCount).toBeGreaterThan(0);
  });

  it('without the expiry scanner, stale timers are read as live after T+ wraps (caught)', () => {
    const r = driveConfig(small, { ops: 20_000, seed: 1, design: buildTbf(small, { scanner: false }) });
    expect(r.agingEvents).toBeGreaterThan(0);
    expect(r.mismatchCount).toBeGreaterThan(0);
    expect(timers(r).count).toBeGreaterThan(0);
  });

  it('clear empties the filter; responses keep order and tags under back-pressure and idle cycles', () => {
    const r = driveConfig(small, {
      ops: 30_000,
      seed: 9,
      backpressure: 0.4,
      idle: 0.2,
      mix: { query: 3, insert: 3, testAndInsert: 3, clear: 0.01 },
    });
    expect(r.responses).toBe(30_000);
    expect(r.mismatches).toEqual([]);
  });
});

describe('test cover', () => {
  it('a decision unit is a pipeline shape of its own in the test cover (test/helpers/presets.ts)', () => {
    expect(pipelineShape('btbf_k3_w256_b8_decision')).not.toBe(pipelineShape('btbf_k4_w512_b16'));
  });
});
