/**
 * Small windows (a defect a fuzz campaign found): a TBF with window 1 answered "live" for a key
 * two inserts old (op 27 of `verify … --seed 1`), because the scanner leaves alone the lane the op
 * one ahead has just written, which is stale already two inserts later when B = 1 and w = 1. The
 * derivation refuses that config now, naming the window; window 2 (and BTBF) verify clean.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/resolve.js';
import { driveAsync } from '../../../src/verify/stream.js';

const base = { name: 'm_tb3', filter: 'tbf', k: 1, timersPerBank: 2, timerBits: 3, keyBits: 8, seed: 1 };

describe('TBF/BTBF with the smallest windows', () => {
  it('window 1 with blockSize 1 is refused naming the window', () => {
    expect(() => resolveConfig({ ...base, window: 1 }, 'cfg')).toThrow(
      /^cfg: field 'window': must be at least 2 with blockSize 1/,
    );
    expect(() => resolveConfig({ ...base, filter: 'btbf', blockSize: 1, window: 1 }, 'cfg')).toThrow(/field 'window'/);
  });

  const clean: [string, Record<string, unknown>][] = [
    ['TBF k=1, window 2, two 3-bit timers', { ...base, window: 2 }],
    ['TBF k=2, window 2, 16 4-bit timers', { ...base, k: 2, timersPerBank: 16, timerBits: 4, window: 2, keyBits: 64 }],
    [
      'BTBF B=2, window 2',
      { ...base, filter: 'btbf', k: 2, timersPerBank: 16, timerBits: 4, window: 2, blockSize: 2, keyBits: 64 },
    ],
    ['TBF k=1, window 3', { ...base, window: 3, timerBits: 4 }],
  ];
  for (const [what, cfg] of clean)
    it(`${what}: model ≡ simulator over 20000 ops with back-pressure, timers equal`, async () => {
      const f = resolveConfig(cfg);
      const r = await driveAsync(f, { ops: 20_000, seed: 1, backpressure: 0.3, idle: 0.05 });
      expect(r.finished).toBe(true);
      expect(r.mismatches).toEqual([]);
      expect(r.model.compareMemories((n, a) => r.sim.readMemory(n, a)).mismatches).toEqual([]);
    });
});
