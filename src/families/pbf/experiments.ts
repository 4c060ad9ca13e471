import type { ExperimentDef } from '../types.js';

export const pbfExperiments: readonly ExperimentDef[] = [];
