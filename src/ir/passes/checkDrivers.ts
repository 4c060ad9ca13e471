/** Check: every net read has exactly one driver (an input port or one cell). */
import { DesignError, formatLoc } from '../errors.js';
import { cellInputs, cellOutput, type Design, type NetId, type SrcLoc } from '../types.js';

export function checkDrivers(d: Design): Design {
  const driverLoc = new Map<NetId, SrcLoc>();
  const drive = (net: NetId, loc: SrcLoc): void => {
    const prev = driverLoc.get(net);
    if (prev) {
      throw new DesignError(
        d.name,
        `multiple drivers: '${d.nets[net]!.name}' is driven here and at ${formatLoc(prev)}`,
        loc,
      );
    }
    driverLoc.set(net, loc);
  };
  for (const p of d.inputs) drive(p.net, d.nets[p.net]!.loc);
  for (const c of d.cells) drive(cellOutput(c), c.loc);
  const need = (net: NetId, loc: SrcLoc, what: string): void => {
    if (!driverLoc.has(net)) {
      throw new DesignError(
        d.name,
        `undriven: '${d.nets[net]!.name}' (${what}) has no driver`,
        d.nets[net]!.loc ?? loc,
      );
    }
  };
  for (const c of d.cells) for (const n of cellInputs(c)) need(n, c.loc, `read by ${c.kind}`);
  for (const p of d.outputs) need(p.net, d.nets[p.net]!.loc, `output '${p.name}'`);
  return d;
}
