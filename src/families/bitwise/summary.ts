/** Placeholder: replaced by the analytics. */
import type { Analysis } from '../types.js';
import type { BitwiseDerived } from './types.js';

export function bitwiseAnalysis(c: BitwiseDerived): Analysis {
  return {
    values: { filter: c.filter, fp: 0, window: null, slack: 0, accessesFalse: 0, bitsPerElement: 0 },
    headline: c.name,
    lines: [],
  };
}
