/** A computed table beside the printed one (a paper's table), and its text form. */

export interface Column {
  key: string;
  title: string;
  digits: number;
}

export interface ComputedTable {
  name: string;
  caption: string;
  columns: Column[];
  rows: Record<string, number>[];
  /** Cells where the printed value differs from the computed one at the printed precision. */
  disagreements: { row: number; column: string; computed: string; printed: string }[];
}

export function formatTable(t: ComputedTable): string {
  const head = t.columns.map((c) => c.title);
  const body = t.rows.map((r) =>
    t.columns.map((c) => {
      const v = r[c.key]!.toFixed(c.digits);
      const d = t.disagreements.find((x) => x.row === t.rows.indexOf(r) && x.column === c.key);
      return d ? `${v} (paper ${d.printed})` : v;
    }),
  );
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padStart(widths[i]!)).join('  ');
  const out = [`${t.name}: ${t.caption}`, line(head), ...body.map(line)];
  if (t.disagreements.length === 0) out.push('All cells agree with the printed table at its precision.');
  else {
    out.push(`${t.disagreements.length} cell(s) differ from the printed table (computed first, then the paper):`);
    for (const d of t.disagreements)
      out.push(`  row ${d.row + 1} ${d.column}: computed ${d.computed}, printed ${d.printed}`);
  }
  return out.join('\n');
}
