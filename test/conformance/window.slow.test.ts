/**
 * Conformance, part 3 (full tier): the no-false-negative runs of the presets whose windows are too
 * long for the fast tier (more than 40 000 ops; test/helpers/window.ts).
 */
import { describe } from 'vitest';
import { presetFilters } from '../../src/config/resolve.js';
import { noFalseNegatives, windowRun } from '../helpers/window.js';

describe('no false negative on the presets with long windows', () => {
  for (const f of presetFilters()) if (windowRun(f)?.long === true) noFalseNegatives(f);
});
