/** Worker thread entry: one shard's software filter timed on this thread (see ./bench.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { softwareOpsPerSec } from './hw.js';
import { loadLaneConfig } from '../config/lanes.js';

const { spec, lanes, shards } = workerData as { spec: string; lanes: number; shards: number };
parentPort!.postMessage(softwareOpsPerSec(loadLaneConfig(spec, { lanes, shards }).shard));
