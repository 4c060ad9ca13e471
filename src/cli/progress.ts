/**
 * Progress on a terminal: a bar on stderr while a long command runs, nothing when stderr is not a
 * terminal (piped, CI) or the command prints JSON.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  /** Sets the amount done (and optionally the current step's name). */
  update(done: number, step?: string): void;
  stop(): void;
}

const NONE: Progress = { update: () => {}, stop: () => {} };

export function progress(label: string, total: number, unit: string, quiet = false): Progress {
  if (quiet || !process.stderr.isTTY) return NONE;
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {value}/{total} ${unit} {step}`, clearOnComplete: true, stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { step: '' });
  return { update: (done, step) => bar.update(done, { step: step ?? '' }), stop: () => bar.stop() };
}
