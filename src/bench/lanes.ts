/**
 * `bloomforge bench` of an N-lane config: the design beside the software filter on every core.
 *   - ops/cycle in steady state with every lane offered a request every cycle (uniform keys,
 *     query:insert 1:1), on the compiled simulator;
 *   - fmax (Yosys + nextpnr, median of the seeds) when the design fits the target, and the
 *     hardware's M ops/s = ops/cycle · fmax;
 *   - the TS simulator and Verilator on the same stimulus (cycles/s, outputs equal);
 *   - the software filter on every core: one worker thread per core, each with one shard's
 *     software filter (1/S of the memory, sharded the same way), timed at the same time; the sum
 *     of their test-and-insert ops/s. Routing keys to threads is not timed.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { SoftwareSpeed } from './hw.js';
import { simBench, type SimBenchResult } from './sim.js';
import { DoesNotFitError, synthesize } from '../synth/index.js';
import { driveLanes } from '../verify/lanes.js';
import type { LaneFilter } from '../lanes/filter.js';

export interface LaneBench {
  config: string;
  lanes: number;
  shards: number;
  target: string;
  opsPerCycle: number;
  fmaxMHz: number | null;
  /** Why there is no fmax (the design does not fit, or no place-and-route for the target). */
  fmaxNote: string | null;
  luts: number | null;
  brams: number | null;
  hwMopsPerSec: number | null;
  sim: SimBenchResult;
  threads: number;
  /** Sum over the threads of test-and-insert ops/s, and each thread's. */
  swOpsPerSec: number;
  swPerThread: number[];
  hwOverSw: number | null;
}

function softwareOnThreads(spec: string, lf: LaneFilter, threads: number): Promise<SoftwareSpeed[]> {
  const url = new URL('./laneSwWorker.mjs', import.meta.url);
  return Promise.all(
    Array.from(
      { length: threads },
      () =>
        new Promise<SoftwareSpeed>((resolve, reject) => {
          const w = new Worker(url, {
            workerData: { spec, lanes: lf.lanes, shards: lf.shards, merge: lf.merge, target: lf.base.config.target },
          });
          w.once('message', resolve);
          w.once('error', reject);
        }),
    ),
  );
}

export async function benchLanes(
  spec: string,
  lf: LaneFilter,
  o: {
    seeds: number;
    cycles: number;
    opsPerLane: number;
    onStep?: (step: string) => void;
    /** false: no synthesis (no fmax). */
    synth?: boolean;
    /** Software threads (default: one per core). */
    threads?: number;
  },
): Promise<LaneBench> {
  o.onStep?.('ops/cycle');
  const t = driveLanes(lf, { opsPerLane: o.opsPerLane, seed: 1, mix: { query: 1, insert: 1 }, throughputOnly: true });
  o.onStep?.('synthesis');
  const target = lf.base.config.target;
  let fmaxMHz: number | null = null;
  let fmaxNote: string | null = null;
  let luts: number | null = null;
  let brams: number | null = null;
  if (o.synth === false) fmaxNote = 'not synthesized (--no-synth)';
  else {
    try {
      const s = await synthesize(lf.design(), { target, seeds: o.seeds });
      fmaxMHz = s.fmaxMHz;
      luts = s.luts;
      brams = s.brams;
      if (fmaxMHz === null) fmaxNote = s.note;
    } catch (e) {
      if (!(e instanceof DoesNotFitError)) throw e;
      fmaxNote = e.message;
    }
  }
  o.onStep?.('TS simulator vs Verilator');
  const sim = await simBench(lf.design(), o.cycles);
  o.onStep?.('software filter on every core');
  const threads = o.threads ?? os.availableParallelism();
  const sw = await softwareOnThreads(spec, lf, threads);
  const per = sw.map((x) => x.testAndInsert ?? 0);
  const swOps = per.reduce((a, b) => a + b, 0);
  const hw = fmaxMHz === null ? null : fmaxMHz * t.opsPerCycle;
  return {
    config: lf.name,
    lanes: lf.lanes,
    shards: lf.shards,
    target,
    opsPerCycle: t.opsPerCycle,
    fmaxMHz,
    fmaxNote,
    luts,
    brams,
    hwMopsPerSec: hw,
    sim,
    threads,
    swOpsPerSec: swOps,
    swPerThread: per,
    hwOverSw: hw === null || swOps === 0 ? null : (hw * 1e6) / swOps,
  };
}
