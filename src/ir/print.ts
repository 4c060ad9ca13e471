/**
 * Canonical text form of a design: one s-expression per net, port and cell, in IR order.
 * Stable across runs (no source locations), so lowering can be snapshot-tested.
 */
import { assertNever, type Cell, type Design } from './types.js';

function cellToString(d: Design, c: Cell): string {
  const n = (id: number): string => `%${id}:${d.nets[id]!.name}`;
  const opt = (id: number | null): string => (id === null ? '-' : n(id));
  switch (c.kind) {
    case 'const':
      return `(const ${n(c.out)} ${d.nets[c.out]!.width}'h${c.value.toString(16)})`;
    case 'not':
      return `(not ${n(c.out)} ${n(c.a)})`;
    case 'bitwise':
    case 'arith':
    case 'compare':
      return `(${c.kind}.${c.op} ${n(c.out)} ${n(c.a)} ${n(c.b)})`;
    case 'shift':
      return `(shift.${c.op} ${n(c.out)} ${n(c.a)} ${n(c.amount)})`;
    case 'mux':
      return `(mux ${n(c.out)} ${n(c.sel)} ${n(c.whenTrue)} ${n(c.whenFalse)})`;
    case 'concat':
      return `(concat ${n(c.out)} ${c.parts.map(n).join(' ')})`;
    case 'slice':
      return `(slice ${n(c.out)} ${n(c.a)} ${c.lo})`;
    case 'reduce':
      return `(reduce.${c.op} ${n(c.out)} ${n(c.a)})`;
    case 'reg':
      return `(reg ${n(c.out)} d=${n(c.d)} en=${opt(c.en)} rst=${opt(c.rst)} reset=${c.resetValue.toString(16)})`;
    case 'memory':
      return (
        `(memory ${c.name} ${c.depth}x${c.width} rdw=${c.readDuringWrite} rdata=${n(c.rdData)} raddr=${n(c.rdAddr)} ` +
        `ren=${n(c.rdEn)} waddr=${n(c.wrAddr)} wen=${n(c.wrEn)} wdata=${n(c.wrData)} wmask=${opt(c.wrMask)}${c.init ? ` init=${c.init.map((v) => v.toString(16)).join(',')}` : ''})`
      );
    case 'h3':
      return `(h3 ${n(c.out)} ${n(c.key)} seed=${c.seed} salt=${c.salt} rows=${c.rows.map((r) => r.toString(16)).join(',')})`;
    default:
      return assertNever(c);
  }
}

export function designToString(d: Design): string {
  const lines = [`(design ${d.name}`];
  for (const net of d.nets) lines.push(`  (net %${net.id}:${net.name} ${net.width})`);
  for (const p of d.inputs) lines.push(`  (input ${p.name} %${p.net})`);
  for (const p of d.outputs) lines.push(`  (output ${p.name} %${p.net})`);
  for (const c of d.cells) lines.push(`  ${cellToString(d, c)}`);
  return lines.join('\n') + ')';
}
