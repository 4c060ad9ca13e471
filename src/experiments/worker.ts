/** Worker thread entry: runs one experiment and posts its result. */
import { parentPort, workerData } from 'node:worker_threads';
import { runExperiment, type ExperimentName, type RunOptions } from './index.js';

const { name, o } = workerData as { name: ExperimentName; o: RunOptions };
parentPort!.postMessage(runExperiment(name, o));
