/**
 * The pass pipeline every design goes through before any back-end sees it: checks first (an
 * invalid design never reaches a back-end), then transforms.
 */
import type { Design } from '../types.js';
import { checkCombLoops } from './checkCombLoops.js';
import { checkDrivers } from './checkDrivers.js';
import { checkWidths } from './checkWidths.js';
import { nameNets } from './nameNets.js';
import { removeDeadCells } from './removeDeadCells.js';

export type Pass = (d: Design) => Design;

export const PASSES: readonly { name: string; run: Pass }[] = [
  { name: 'checkWidths', run: checkWidths },
  { name: 'checkDrivers', run: checkDrivers },
  { name: 'checkCombLoops', run: checkCombLoops },
  { name: 'removeDeadCells', run: removeDeadCells },
  { name: 'nameNets', run: nameNets },
];

export function runPasses(d: Design): Design {
  return PASSES.reduce((acc, p) => p.run(acc), d);
}
