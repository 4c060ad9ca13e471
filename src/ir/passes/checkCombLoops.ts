/** Check: the combinational cells form a DAG (registers and memories break paths). */
import { combOrder } from '../topo.js';
import type { Design } from '../types.js';

export function checkCombLoops(d: Design): Design {
  combOrder(d); // throws a DesignError naming the loop
  return d;
}
