// Typed errors with stable codes; src/cli.ts maps them to exit codes in one place.

export const ExitCode = {
  VERIFIED: 0,
  FAILED: 1,
  ERROR: 2,
  INPUT: 3,
  /** `merge`: the shard outputs are not one complete verification (missing, duplicated or mixed shards). */
  INCOMPLETE: 4,
  INTERRUPTED: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** Base class of every error Elenchos expects and can explain in one line. */
export class ElenchosError extends Error {
  readonly code: string = 'ELENCHOS_ERROR';
  readonly exitCode: ExitCodeValue = ExitCode.ERROR;
  /** Extra lines printed under the message (one problem each). */
  readonly details: readonly string[];

  constructor(message: string, options: { cause?: unknown; details?: readonly string[] } = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.details = options.details ?? [];
  }
}

/** The user gave us something we cannot use: a file, a flag, a key. Exit 3. */
export class InputError extends ElenchosError {
  override readonly code: string = 'ELENCHOS_INVALID_INPUT';
  override readonly exitCode: ExitCodeValue = ExitCode.INPUT;
}

/** A JSON file that does not parse, with line and column. */
export class JsonSyntaxError extends InputError {
  override readonly code = 'ELENCHOS_JSON_SYNTAX';
}

/** A file that parses but breaks its schema; `details` holds one `file: path: message` per issue. */
export class ValidationError extends InputError {
  override readonly code = 'ELENCHOS_VALIDATION';
}

/** A file that should exist does not, or cannot be read. */
export class FileNotFoundError extends InputError {
  override readonly code = 'ELENCHOS_FILE_NOT_FOUND';
}

/** A path that leaves the repository (`..`, absolute, or a symlink leading out). */
export class PathEscapeError extends InputError {
  override readonly code = 'ELENCHOS_PATH_ESCAPE';
}

/** A refusal before any run starts: not a repository, dirty tree, missing executable. Exit 3. */
export class PreflightError extends InputError {
  override readonly code: string = 'ELENCHOS_PREFLIGHT';
  constructor(
    readonly reason: string,
    message: string,
    options: { cause?: unknown; details?: readonly string[] } = {},
  ) {
    super(message, options);
  }
}

/** `merge` refuses shard outputs that do not make exactly one whole verification. Exit 4, never 0. */
export class ShardSetError extends ElenchosError {
  override readonly code = 'ELENCHOS_SHARDS_INCOMPLETE';
  override readonly exitCode: ExitCodeValue = ExitCode.INCOMPLETE;
}

/** The run was interrupted (SIGINT/SIGTERM). Exit 130. */
export class InterruptedError extends ElenchosError {
  override readonly code = 'ELENCHOS_INTERRUPTED';
  override readonly exitCode: ExitCodeValue = ExitCode.INTERRUPTED;
}

/** No space left to write or seal the run's evidence (ENOSPC, a quota). Exit 2. */
export class DiskFullError extends ElenchosError {
  override readonly code = 'ELENCHOS_DISK_FULL';
}

/** Returns the error's message, whatever was thrown. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
