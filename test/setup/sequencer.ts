/**
 * The order test files start in (two workers): with no timings from an earlier run (a fresh
 * clone, as in CI), vitest starts the largest files first, and the slow files — short, but each
 * minutes of Verilator and Yosys — started last, leaving one worker alone at the end. Here, without
 * timings, the `*.slow.test.ts` files go first (largest first, as vitest does), then the rest;
 * with timings from an earlier run, vitest's own order (longest first).
 */
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const timed = sorted.every((f) =>
      this.ctx.cache.getFileTestResults(`${f.project.name}:${f.moduleId.slice(root.length + 1)}`),
    );
    if (timed) return sorted;
    const slow = (f: TestSpecification): number => (/\.slow\.test\.ts$/.test(f.moduleId) ? 0 : 1);
    // A stable sort keeps vitest's order (largest first) within each group.
    return [...sorted].sort((a, b) => slow(a) - slow(b));
  }
}
