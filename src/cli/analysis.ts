/** CLI: analyze (one config's analytics), table (the paper's tables, computed). */
import type { Command } from 'commander';
import { analyzeApbf } from '../families/apbf/summary.js';
import { formatTable, table2, table3, table4 } from '../families/apbf/tables.js';
import path from 'node:path';
import { candidateAccesses, plan, planConfig, type PlanConstraints } from '../families/apbf/planner.js';
import { writeAll } from '../util/files.js';
import { UsageError } from './errors.js';
import { loadConfig } from './filters.js';
import { isTbf } from '../families/legacy.js';
import { analyzeTbf } from '../families/tbf/summary.js';
import { planTbf, tbfPlanConfig, type TbfPlanConstraints } from '../families/tbf/planner.js';

export function registerAnalysisCommands(p: Command): void {
  p.command('analyze')
    .description("a config's false-positive rate, accesses, window, slack, NPWS and bits per element")
    .argument('<config>', 'preset name or config JSON file')
    .option('--json', 'print JSON')
    .action((spec: string, o: { json?: boolean }) => {
      const c = loadConfig(spec);
      if (isTbf(c)) {
        const t = analyzeTbf(c);
        if (o.json) {
          console.log(JSON.stringify(t, null, 2));
          return;
        }
        console.log(
          `${spec}: ${t.filter} k=${t.k} timers=${t.timersPerBank}x${t.timerBits}b B=${t.blockSize} P=${t.padding} TΩ=${t.tOmega}`,
        );
        console.log(`  window w = ${t.window} (exact: no slack)`);
        console.log(`  standard fp ${t.fp.toExponential(4)} (${t.fpBasis})`);
        console.log(`  query accesses (false, stopping at the first expired timer) ${t.accessesFalse.toFixed(2)}`);
        console.log(
          `  bits per element ${t.bitsPerElement.toFixed(2)} (${t.bitsPerElementHardware.toFixed(2)} in the hardware: two timer copies and mark bits)`,
        );
        console.log(
          `  expiry scan: ${t.scanTimersPerInsert} timers per insert, a sweep every ${t.scanSweepInserts} inserts`,
        );
        return;
      }
      const a = analyzeApbf(c);
      if (o.json) {
        console.log(JSON.stringify(a, null, 2));
        return;
      }
      console.log(`${spec}: ${a.filter} k=${a.k} l=${a.l} m=${a.m} g=${a.g}${a.B > 1 ? ` B=${a.B} b=${a.b}` : ''}`);
      console.log(`  window w = ${a.window}, slack s = ${a.slack}, peak NPWS ${a.npws.toFixed(3)}`);
      console.log(`  fp just before a shift ${a.fp.toExponential(4)} (${a.fpBasis})`);
      console.log(`  fp with the paper's idealised fill ratios ${a.fpIdealised.toExponential(4)}`);
      console.log(
        `  query accesses: window ${a.accessesWindow.toFixed(2)}, fp ${a.accessesFalsePositive.toFixed(2)}, false ${a.accessesFalse.toFixed(2)}`,
      );
      console.log(
        `  bits per element ${a.bitsPerElement.toFixed(2)} (${a.bitsPerElementHardware.toFixed(2)} with the spare banks)`,
      );
      if (a.capacityVsApbf !== null)
        console.log(`  capacity vs an APBF (k·b, l·b) of the same memory ${a.capacityVsApbf.toFixed(3)}`);
    });

  p.command('table')
    .description("reproduce the APBF paper's Table 2 (apbf), Table 3 (apbbf) or Table 4 (swamp) from the analytics")
    .argument('<which>', 'apbf | apbbf | swamp')
    .option('--json', 'print JSON')
    .action((which: string, o: { json?: boolean }) => {
      const make = { apbf: table2, apbbf: table3, swamp: table4 }[which];
      if (!make) throw new UsageError(`table: '${which}' is not one of apbf, apbbf, swamp`);
      const t = make();
      console.log(o.json ? JSON.stringify(t, null, 2) : formatTable(t));
    });
}

export function registerPlanCommand(p: Command): void {
  p.command('plan')
    .description(
      'choose APBF/APBBF/TBF/BTBF parameters meeting a window and fp with the least memory (or block RAMs on --target)',
    )
    .requiredOption('--filter <f>', 'apbf | apbbf | tbf | btbf')
    .requiredOption('--window <w>', 'sliding window (keys)', (v) => Number(v))
    .requiredOption('--fp <p>', 'false-positive rate at the worst moment', (v) => Number(v))
    .option('--max-npws <x>', 'peak normalised probability-weighted slack', (v) => Number(v))
    .option('--max-slack <s>', 'slack k·g in keys', (v) => Number(v))
    .option('--target <t>', 'ice40-hx8k | ice40-up5k | ecp5 | xilinx: fewest block RAMs that fit')
    .option('--name <n>', 'config name', 'planned')
    .option('--json', 'print JSON')
    .option('-o, --out <file>', 'write the chosen config (JSON) for generate')
    .action(
      (o: {
        filter: string;
        window: number;
        fp: number;
        maxNpws?: number;
        maxSlack?: number;
        target?: string;
        name: string;
        json?: boolean;
        out?: string;
      }) => {
        if (!['apbf', 'apbbf', 'tbf', 'btbf'].includes(o.filter))
          throw new UsageError(`plan: --filter ${o.filter}: must be one of apbf, apbbf, tbf, btbf`);
        const targets = ['ice40-hx8k', 'ice40-up5k', 'ecp5', 'xilinx'];
        if (o.target !== undefined && !targets.includes(o.target))
          throw new UsageError(`plan: --target must be one of ${targets.join(', ')}`);
        if (o.filter === 'tbf' || o.filter === 'btbf') {
          if (o.maxNpws !== undefined || o.maxSlack !== undefined)
            throw new UsageError('plan: --max-npws and --max-slack are APBF constraints (a TBF window has no slack)');
          planTbfCommand({ ...o, filter: o.filter });
          return;
        }
        const pl = plan({
          filter: o.filter as 'apbf' | 'apbbf',
          window: o.window,
          fp: o.fp,
          maxNpws: o.maxNpws,
          maxSlack: o.maxSlack,
          target: o.target as PlanConstraints['target'],
          name: o.name,
        });
        const w = pl.winner;
        const cfg = planConfig(pl);
        const summary = {
          winner: cfg,
          fp: w.fp,
          window: w.config.window,
          slack: w.slack,
          npws: w.npws,
          accessesFalse: candidateAccesses(w),
          bitsPerElement: w.bitsPerElement,
          memoryBits: w.memoryBits,
          blockRams: w.blockRams,
          considered: pl.considered,
          rejectedBy: pl.rejectedBy,
          nearMisses: pl.nearMisses.map((c) => ({
            k: c.config.k,
            l: c.config.l,
            m: c.config.segmentBits,
            B: c.config.blockBits,
            b: c.config.bitsPerBlock,
            reason: c.rejected!.detail,
          })),
        };
        if (o.out) {
          writeAll(path.dirname(path.resolve(o.out)), { [path.basename(o.out)]: JSON.stringify(cfg, null, 2) + '\n' });
        }
        if (o.json) console.log(JSON.stringify(summary, null, 2));
        else {
          const c = w.config;
          console.log(
            `plan: ${c.filter} k=${c.k} l=${c.l} m=${c.segmentBits} g=${c.generation}${c.filter === 'apbbf' ? ` B=${c.blockBits} b=${c.bitsPerBlock}` : ''}`,
          );
          console.log(
            `  fp ${w.fp.toExponential(3)} (<= ${o.fp}), window ${c.window}, slack ${w.slack}, NPWS ${w.npws.toFixed(3)}, accesses (false) ${summary.accessesFalse.toFixed(2)}`,
          );
          console.log(
            `  ${w.bitsPerElement.toFixed(2)} bits/element, ${w.memoryBits} bits with spares, ${w.blockRams} block RAMs${o.target ? ` on ${o.target}` : ''}`,
          );
          console.log(
            `  ${pl.considered} candidates; rejected: ${
              Object.entries(pl.rejectedBy)
                .map(([r, n]) => `${n} by ${r}`)
                .join(', ') || 'none'
            }`,
          );
          for (const n of summary.nearMisses) console.log(`    e.g. k=${n.k} l=${n.l} m=${n.m}: ${n.reason}`);
          if (o.out) console.log(`  wrote ${o.out}`);
        }
      },
    );
}

function planTbfCommand(o: {
  filter: 'tbf' | 'btbf';
  window: number;
  fp: number;
  target?: string;
  name: string;
  json?: boolean;
  out?: string;
}): void {
  const pl = planTbf({
    filter: o.filter,
    window: o.window,
    fp: o.fp,
    target: o.target as TbfPlanConstraints['target'],
    name: o.name,
  });
  const w = pl.winner;
  const cfg = tbfPlanConfig(pl);
  const a = analyzeTbf(w.config);
  const summary = {
    winner: cfg,
    fp: w.fp,
    window: w.config.window,
    slack: 0,
    npws: null,
    accessesFalse: a.accessesFalse,
    bitsPerElement: w.bitsPerElement,
    memoryBits: w.memoryBits,
    blockRams: w.blockRams,
    considered: pl.considered,
    rejectedBy: pl.rejectedBy,
    nearMisses: pl.nearMisses.map((c) => ({
      k: c.config.k,
      timersPerBank: c.config.timersPerBank,
      timerBits: c.config.timerBits,
      blockSize: c.config.blockSize,
      reason: c.rejected!.detail,
    })),
  };
  if (o.out)
    writeAll(path.dirname(path.resolve(o.out)), { [path.basename(o.out)]: JSON.stringify(cfg, null, 2) + '\n' });
  if (o.json) {
    console.log(JSON.stringify(summary, null, 2));
    return;
  }
  const c = w.config;
  console.log(
    `plan: ${c.filter} k=${c.k} timersPerBank=${c.timersPerBank} timerBits=${c.timerBits}${c.filter === 'btbf' ? ` B=${c.blockSize}` : ''} P=${c.padding}`,
  );
  console.log(
    `  standard fp ${w.fp.toExponential(3)} (<= ${o.fp}), window ${c.window}, accesses (false) ${a.accessesFalse.toFixed(2)}`,
  );
  console.log(
    `  ${w.bitsPerElement.toFixed(2)} timer bits/element, ${w.memoryBits} hardware bits, ${w.blockRams} block RAMs${o.target ? ` on ${o.target}` : ''}`,
  );
  console.log(
    `  ${pl.considered} candidates; rejected: ${
      Object.entries(pl.rejectedBy)
        .map(([r, n]) => `${n} by ${r}`)
        .join(', ') || 'none'
    }`,
  );
  for (const n of summary.nearMisses)
    console.log(`    e.g. k=${n.k} timers=${n.timersPerBank}x${n.timerBits}b B=${n.blockSize}: ${n.reason}`);
  if (o.out) console.log(`  wrote ${o.out}`);
}
