/**
 * The error classes every layer may throw, with the exit codes the README documents:
 * 0 ok, 1 a check failed (mismatches, a run that could not finish), 2 usage, config or design
 * error (one line naming the field, option or line), 3 a required external tool is missing.
 */
export const EXIT = { ok: 0, checkFailed: 1, usage: 2, tool: 3 } as const;

/** A config field is invalid: the message names the source and the field. */
export class ConfigError extends Error {
  readonly exitCode = EXIT.usage;
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** A command-line option or argument is invalid. */
export class UsageError extends Error {
  readonly exitCode = EXIT.usage;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
