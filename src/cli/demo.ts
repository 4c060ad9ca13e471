/**
 * `bloomforge demo` (what `make demo` runs): the product on its default filters — each family's
 * demo preset is generated as IP, verified against its model and Verilator, synthesised (from
 * the synthesis cache, or one nextpnr seed), timed in the TS simulator and Verilator and as a
 * software filter — and one table of the figures, with the paths of what it wrote.
 */
import path from 'node:path';
import { softwareOpsPerSec, sustainedOpsPerCycle } from '../bench/hw.js';
import { simBench } from '../bench/sim.js';
import { loadConfig } from '../config/resolve.js';
import { FAMILIES } from '../families/index.js';
import { ipFiles } from '../ip/package.js';
import { synthesize } from '../synth/index.js';
import { EXIT } from '../util/errors.js';
import { writeAll } from '../util/files.js';
import { VERSION } from '../version.js';
import { verifyFilter } from '../verify/index.js';
import { writeVcd } from './args.js';
import { progress } from './progress.js';

export interface DemoOptions {
  out: string;
  ops: number;
  simCycles: number;
}

interface Row {
  filter: string;
  family: string;
  verified: string;
  opsPerCycle: number;
  latency: number;
  brams: number;
  fmax: number | null;
  ts: number;
  verilator: number;
  sw: number | null;
  files: string[];
}

const M = (x: number | null, d = 2): string => (x === null ? 'n/a' : (x / 1e6).toFixed(d));

export async function demo(o: DemoOptions): Promise<number> {
  const presets = FAMILIES.flatMap((f) => (f.demoPreset ? [f.demoPreset] : []));
  console.log(`bloomforge ${VERSION} demo: ${presets.join(', ')} (out: ${o.out})`);
  const filters = presets.map(loadConfig);
  // Synthesis runs in Yosys and nextpnr (other processes) while this one verifies and times:
  // one filter after the other, beside the rest.
  const synthAll = (async () => {
    const out = [];
    for (const f of filters) out.push(await synthesize(f.design(), { target: f.config.target, seeds: 1 }));
    return out;
  })();
  synthAll.catch(() => {}); // awaited below; keeps an early failure from being unhandled meanwhile
  const rows: (Omit<Row, 'brams' | 'fmax'> & { index: number })[] = [];
  let ok = true;
  for (const [index, f] of filters.entries()) {
    const name = f.name;
    const dir = path.join(o.out, name);
    const files = writeAll(dir, ipFiles(f)).map((x) => path.relative(process.cwd(), x));
    const bar = progress(`${name}: verify`, o.ops, 'ops');
    let v;
    try {
      v = await verifyFilter(f, {
        ops: o.ops,
        seed: 1,
        backpressure: 0.3,
        idle: 0.05,
        onProgress: (x) => bar.update(x.accepted),
      });
    } finally {
      bar.stop();
    }
    ok &&= v.ok;
    // A short VCD: the first 400 cycles after the power-up sweep.
    const start = Math.max(0, v.drive.firstAccept - 2);
    const vcd = path.join(dir, `${name}.vcd`);
    writeVcd(v.drive.design, v.drive.trace!.stim, v.drive.trace!.cycles, vcd, { from: start, to: start + 399 });
    console.error(`${name}: verified (${v.mismatches} mismatches); timing…`);
    const sus = sustainedOpsPerCycle(f);
    const sim = await simBench(f.design(), o.simCycles);
    const sw = softwareOpsPerSec(f);
    const swMain = sw.testAndInsert ?? sw.insert;
    rows.push({
      index,
      filter: name,
      family: f.family.id,
      verified: v.ok ? `ok (${v.drive.ops} ops, 0 mismatches)` : `FAILED (${v.mismatches} mismatches)`,
      opsPerCycle: sus.opsPerCycle,
      latency: f.protocol().latency,
      ts: sim.tsCyclesPerSec,
      verilator: sim.verilatorCyclesPerSec,
      sw: swMain,
      files: [...files.filter((x) => /\.(v|json|core)$/.test(x) && !x.endsWith('_inst.v')), vcd],
    });
  }
  const synths = await synthAll;
  const table: Row[] = rows.map((r) => ({ ...r, brams: synths[r.index]!.brams, fmax: synths[r.index]!.fmaxMHz }));
  console.log(
    '\n| filter | verify: model ≡ TS sim ≡ Verilator | ops/cycle | latency | block RAMs | fmax MHz (1 seed) | HW Mops/s | TS sim Mcycles/s | Verilator Mcycles/s | TS/Verilator | SW Mops/s | HW/SW |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of table) {
    const hw = r.fmax === null ? null : r.fmax * r.opsPerCycle * 1e6;
    console.log(
      `| ${r.filter} | ${r.verified} | ${r.opsPerCycle.toFixed(3)} | ${r.latency} | ${r.brams} | ${r.fmax?.toFixed(1) ?? 'n/a'} | ` +
        `${M(hw, 1)} | ${M(r.ts)} | ${M(r.verilator)} | ${(r.ts / r.verilator).toFixed(2)} | ${M(r.sw)} | ` +
        `${hw === null || r.sw === null ? 'n/a' : (hw / r.sw).toFixed(0)} |`,
    );
  }
  console.log('\nWritten:');
  for (const r of table) for (const x of r.files) console.log(`  ${x}`);
  console.log(
    '\nHW Mops/s = fmax × ops/cycle (iCE40 HX8K, one nextpnr seed; `bloomforge synth NAME --seeds 3` for the median); ' +
      'SW = the software filter, test-and-insert per op, on this machine.',
  );
  return ok ? EXIT.ok : EXIT.checkFailed;
}
