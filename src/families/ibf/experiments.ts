import type { ExperimentDef } from '../types.js';

export const ibfExperiments: readonly ExperimentDef[] = [];
