/**
 * Transform: drop cells whose results never reach an output, and nets nothing uses. Both
 * back-ends see the same pruned design, so "the simulator agrees with Verilator" still holds.
 */
import { remapCell } from '../remap.js';
import { fanInCone } from '../topo.js';
import { cellInputs, cellOutput, type Design, type NetId } from '../types.js';

export function removeDeadCells(d: Design): Design {
  const live = fanInCone(
    d,
    d.outputs.map((p) => p.net),
    cellInputs,
  );
  const cells = d.cells.filter((c) => live.has(cellOutput(c)));
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
