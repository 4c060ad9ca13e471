import { describe, expect, it } from 'vitest';
import { ibfExperiments } from '../../../src/families/ibf/experiments.js';
import type { ExperimentResult } from '../../../src/families/types.js';

function run(name: string, scale: number): ExperimentResult {
  const def = ibfExperiments.find((e) => e.name === name)!;
  const params = Object.fromEntries((def.options ?? []).map((o) => [o.name, o.default]));
  return def.run({ engine: 'model', seed: 1, scale, params });
}

describe("ibf experiments: the paper's statements checked on the generated streams", () => {
  it("ibf-zeros (§6.5): every check holds (BF saturates, IBF2 keeps the most empty cells, the IBFs at least the SBF's)", () => {
    const r = run('ibf-zeros', 0.5);
    expect(r.checks!.length).toBe(4);
    for (const c of r.checks!) expect(c.ok, c.what).toBe(true);
  });

  it('ibf-importance-p (§6.4.2): weighted FN falls with importance for the importance-aware schemes, not for the SBF', () => {
    const r = run('ibf-importance-p', 0.5);
    const falls = r.checks!.filter((c) => c.what.includes('I_fn falls') || c.what.includes('flat'));
    expect(falls.length).toBe(6);
    for (const c of falls) expect(c.ok, c.what).toBe(true);
    expect(r.series.length).toBe(15);
  });

  it('every ibf experiment is registered with a description and its own prefixed options', () => {
    expect(ibfExperiments.map((e) => e.name)).toEqual([
      'ibf-aggregate',
      'ibf-importance-n',
      'ibf-importance-p',
      'ibf-importance-k',
      'ibf-importance-m',
      'ibf-zeros',
      'ibf-reinsertion',
    ]);
    for (const e of ibfExperiments) for (const o of e.options ?? []) expect(o.flags).toMatch(/^--ibf-/);
  });
});

describe('ibf-* options', () => {
  it('a bad value is refused naming its flag (UsageError, exit 2)', () => {
    const def = ibfExperiments.find((e) => e.name === 'ibf-importance-k')!;
    const go = (params: Record<string, string>) => () => def.run({ engine: 'model', seed: 1, scale: 0.1, params });
    expect(go({ ibfN: '0' })).toThrow(/^--ibf-n: a positive integer, got '0'$/);
    expect(go({ ibfDistribution: 'zipf' })).toThrow(/--ibf-distribution/);
    let err: unknown;
    try {
      go({ ibfP: 'x' })();
    } catch (e) {
      err = e;
    }
    expect((err as Error).message).toMatch(/^--ibf-p:/);
    expect((err as { exitCode?: number }).exitCode).toBe(2);
  });
});
