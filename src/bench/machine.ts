/**
 * What a benchmark figure needs beside it to be reproducible: the CPU model and core count, Node's
 * and Verilator's versions, and the commit (with a note when the tree had uncommitted changes).
 * Both `npm run bench` and `npm run bench:sim` print it with their tables and in `--json`.
 */
import os from 'node:os';
import { execa } from 'execa';
import { REPO_ROOT, toolVersion } from '../tools/index.js';

export interface MachineInfo {
  cpu: string;
  cores: number;
  node: string;
  /** `verilator --version`'s first line, or null when Verilator is not installed. */
  verilator: string | null;
  /** Short commit hash, `unknown` outside a git checkout; `dirty` when tracked files had changes. */
  commit: string;
  dirty: boolean;
}

async function git(args: string[]): Promise<string | null> {
  const r = await execa('git', args, { cwd: REPO_ROOT, reject: false });
  return r.exitCode === 0 ? r.stdout.trim() : null;
}

export async function machineInfo(): Promise<MachineInfo> {
  const verilator = await toolVersion('verilator').catch(() => null);
  const commit = (await git(['rev-parse', '--short', 'HEAD'])) ?? 'unknown';
  const status = await git(['status', '--porcelain', '--untracked-files=no']);
  return {
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
    cores: os.cpus().length,
    node: process.version,
    verilator,
    commit,
    dirty: status !== null && status !== '',
  };
}

/** One line: `AMD EPYC, 2 cores, node v20.20.2, Verilator 5.006 2022-12-17, commit e4fea0a`. */
export function machineLine(m: MachineInfo): string {
  return (
    `${m.cpu}, ${m.cores} cores, node ${m.node}, ${m.verilator ?? 'no Verilator'}, ` +
    `commit ${m.commit}${m.dirty ? ' (with uncommitted changes)' : ''}`
  );
}
