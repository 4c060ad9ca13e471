/** The A² experiments on the model and on the RTL: every check (99 % intervals) passes. */
import { describe, expect, it } from 'vitest';
import { a2Experiments } from '../../../src/families/a2/experiments.js';

describe('A² experiments', () => {
  for (const def of a2Experiments)
    for (const engine of ['model', 'sim'] as const)
      it(`${def.name} on the ${engine}: measured within the intervals of the analytic values`, () => {
        const r = def.run({ engine, seed: 1, scale: engine === 'sim' ? 0.5 : 0.5, params: {} });
        expect(r.series.find((s) => s.kind === 'measured')!.points.length).toBeGreaterThan(4);
        expect(r.checks!.filter((c) => !c.ok)).toEqual([]);
      }, 60_000);
});
