/** Worker thread entry: runs one experiment and posts its result. */
import { parentPort, workerData } from 'node:worker_threads';
import { runExperiment, type CommonOptions } from './index.js';

const { name, common, given } = workerData as {
  name: string;
  common: CommonOptions;
  given: Record<string, string | undefined>;
};
parentPort!.postMessage(runExperiment(name, common, given));
