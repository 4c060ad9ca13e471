/** Graph walks over a design: drivers, fan-in cones, the topological order of the logic. */
import { DesignError, formatLoc } from './errors.js';
import { cellOutput, combInputs, isSequential, type Cell, type Design, type NetId } from './types.js';

/** The cell driving each net (inputs have none). */
export function driverMap(d: Design): Map<NetId, Cell> {
  const driver = new Map<NetId, Cell>();
  for (const c of d.cells) driver.set(cellOutput(c), c);
  return driver;
}

/**
 * Every net the nets `from` depend on, themselves included, walking back through each driving
 * cell's `inputsOf` (`cellInputs`: through registers and memories too; `combInputs`: within the
 * cycle, stopping at state).
 */
export function fanInCone(d: Design, from: readonly NetId[], inputsOf: (c: Cell) => NetId[]): Set<NetId> {
  const driver = driverMap(d);
  const cone = new Set<NetId>();
  const stack = [...from];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (cone.has(n)) continue;
    cone.add(n);
    const c = driver.get(n);
    if (c) stack.push(...inputsOf(c));
  }
  return cone;
}

/** Combinational cells ordered so every cell comes after the cells driving its inputs. */
export function combOrder(d: Design): Cell[] {
  const driver = driverMap(d);
  const state = new Map<Cell, 1 | 2>(); // 1 = on the stack, 2 = done
  const order: Cell[] = [];
  const visit = (root: Cell): void => {
    // Iterative DFS so deep designs do not overflow the JS stack.
    const stack: { cell: Cell; next: number; inputs: NetId[] }[] = [];
    const push = (cell: Cell): void => {
      state.set(cell, 1);
      stack.push({ cell, next: 0, inputs: combInputs(cell) });
    };
    push(root);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.next < top.inputs.length) {
        const src = driver.get(top.inputs[top.next++]!);
        if (!src || isSequential(src)) continue;
        const st = state.get(src);
        if (st === 1) {
          const cycle = stack.slice(stack.findIndex((f) => f.cell === src)).map((f) => f.cell);
          const desc = cycle.map((c) => `'${d.nets[cellOutput(c)]!.name}' (${formatLoc(c.loc)})`).join(' -> ');
          throw new DesignError(d.name, `combinational loop: ${desc}`, src.loc);
        }
        if (st === undefined) push(src);
      } else {
        stack.pop();
        state.set(top.cell, 2);
        order.push(top.cell);
      }
    }
  };
  for (const c of d.cells) if (!isSequential(c) && !state.has(c)) visit(c);
  return order;
}
