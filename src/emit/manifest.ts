/** The manifest written next to each Verilog file: ports, latency and parameters, as JSON. */
import { clockOf, type Design } from '../ir/types.js';
import { VERSION } from '../version.js';

export interface Manifest {
  name: string;
  generator: string;
  clock: string | null;
  reset: string | null;
  ports: { name: string; direction: 'in' | 'out'; width: number; doc: string }[];
  memories: { name: string; width: number; depth: number; bits: number; readDuringWrite: string; mask: boolean }[];
  meta: Record<string, unknown>;
}

export function manifestOf(d: Design): Manifest {
  const hasClk = d.cells.some((c) => c.kind === 'reg' || c.kind === 'memory');
  const port = (dir: 'in' | 'out') => (p: Design['inputs'][number]) => ({
    name: p.name,
    direction: dir,
    width: d.nets[p.net]!.width,
    doc: p.doc,
  });
  return {
    name: d.name,
    generator: `bloomforge ${VERSION}`,
    clock: hasClk ? `${clockOf(d)} (rising edge)` : null,
    reset: d.inputs.some((p) => p.name === 'rst') ? 'rst (synchronous, active high)' : null,
    ports: [...d.inputs.map(port('in')), ...d.outputs.map(port('out'))],
    memories: d.cells.flatMap((c) =>
      c.kind === 'memory'
        ? [
            {
              name: c.name,
              width: c.width,
              depth: c.depth,
              bits: c.width * c.depth,
              readDuringWrite: c.readDuringWrite,
              mask: c.wrMask !== null,
            },
          ]
        : [],
    ),
    meta: { ...d.meta },
  };
}

export function manifestJson(d: Design): string {
  return JSON.stringify(manifestOf(d), null, 2) + '\n';
}
