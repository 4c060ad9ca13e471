/**
 * Configs drawn by every family's sampler are either refused with one line naming the field, or
 * they build and their pipeline equals the model on a short stream with back-pressure, memories
 * included. Used by test/conformance/sampled.test.ts (fast tier) and sampled.slow.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.js';
import { FAMILIES } from '../../src/families/index.js';
import { ConfigError } from '../../src/util/errors.js';
import { Rng } from '../../src/util/rng.js';
import { driveAsync } from '../../src/verify/stream.js';

export function sampledConfigs(samples: number, seed: number): void {
  describe(`sampled configs of every family (seed ${seed})`, () => {
    for (const family of FAMILIES) {
      it(`${family.id}: ${samples} random configs are refused naming a field, or build and equal the model`, async () => {
        const rng = new Rng(seed);
        let built = 0;
        for (let i = 0; i < samples; i++) {
          const raw = family.sample(rng);
          const what = JSON.stringify(raw);
          let f;
          try {
            f = resolveConfig(raw, 'sampled');
          } catch (e) {
            expect(e, what).toBeInstanceOf(ConfigError);
            expect((e as Error).message, what).toMatch(/^sampled: field '[^']+': /);
            expect((e as Error).message, what).not.toContain('\n');
            continue;
          }
          expect(f.family, what).toBe(family);
          const r = await driveAsync(f, { ops: 400, seed: i, backpressure: 0.3, idle: 0.1 });
          expect(r.finished, `${what}: ${r.stopReason}`).toBe(true);
          expect(r.mismatches, what).toEqual([]);
          expect(r.model.compareMemories((n, a) => r.sim.readMemory(n, a)).mismatches, what).toEqual([]);
          built++;
        }
        expect(built).toBeGreaterThan(samples / 4);
      });
    }
  });
}
