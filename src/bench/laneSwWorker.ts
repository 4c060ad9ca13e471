/** Worker thread entry: one shard's software filter timed on this thread (see ./lanes.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { softwareOpsPerSec } from './hw.js';
import { loadLaneConfig } from '../config/lanes.js';
import type { Target } from '../device/index.js';

const { spec, ...shape } = workerData as {
  spec: string;
  lanes: number;
  shards: number;
  merge: boolean;
  target: Target;
};
parentPort!.postMessage(softwareOpsPerSec(loadLaneConfig(spec, shape).shard));
