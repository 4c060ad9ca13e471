/**
 * Transform: drop cells whose results never reach an output, and nets nothing uses. Both
 * back-ends see the same pruned design, so "the simulator agrees with Verilator" still holds.
 */
import { remapCell } from '../remap.js';
import { cellInputs, cellOutput, type Cell, type Design, type NetId } from '../types.js';

export function removeDeadCells(d: Design): Design {
  const driver = new Map<NetId, Cell>();
  for (const c of d.cells) driver.set(cellOutput(c), c);
  const live = new Set<Cell>();
  const work: NetId[] = d.outputs.map((p) => p.net);
  while (work.length > 0) {
    const c = driver.get(work.pop()!);
    if (!c || live.has(c)) continue;
    live.add(c);
    work.push(...cellInputs(c));
  }
  const cells = d.cells.filter((c) => live.has(c));
  const used = new Set<NetId>([...d.inputs, ...d.outputs].map((p) => p.net));
  for (const c of cells) {
    used.add(cellOutput(c));
    for (const n of cellInputs(c)) used.add(n);
  }
  const newId = new Map<NetId, NetId>();
  const nets = d.nets.filter((n) => used.has(n.id)).map((n, i) => (newId.set(n.id, i), { ...n, id: i }));
  const f = (n: NetId): NetId => newId.get(n)!;
  return {
    ...d,
    nets,
    cells: cells.map((c) => remapCell(c, f)),
    inputs: d.inputs.map((p) => ({ ...p, net: f(p.net) })),
    outputs: d.outputs.map((p) => ({ ...p, net: f(p.net) })),
  };
}
