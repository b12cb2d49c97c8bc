// Loads a task contract: parse, validate every key at once, and resolve its test file inside the repo.
import path from 'node:path';
import { FileNotFoundError, PathEscapeError, ValidationError } from '../errors.js';
import { readJsonFile } from '../util/json-file.js';
import { formatZodIssues } from '../util/zod-issues.js';
import { resolveRepoFile } from './repo-path.js';
import { TaskSchema, type Task } from './task-schema.js';

export interface LoadedTask {
  task: Task;
  /** Absolute path of the task file. */
  path: string;
  /** Path as shown to users: relative to the repository root when inside it. */
  label: string;
  /** The file's bytes exactly as read (the contract lock hashes them). */
  bytes: Buffer;
}

export interface LoadTaskOptions {
  /** Repository root; the label is relative to it. */
  root: string;
}

/** Reads and validates a task file, reporting every schema problem as `file: json.path: message`. */
export async function loadTask(file: string, options: LoadTaskOptions): Promise<LoadedTask> {
  const absolute = path.resolve(options.root, file);
  const relative = path.relative(options.root, absolute);
  const label = relative.startsWith('..') ? absolute : relative.split(path.sep).join('/');
  const { bytes, value } = await readJsonFile(absolute, label);
  const parsed = TaskSchema.safeParse(value);
  if (!parsed.success) {
    // Every problem in one pass: the test file is looked for too when its path could be read.
    const details = [...formatZodIssues(label, parsed.error.issues, TaskSchema), ...(await testFileProblem(value, label, options.root))];
    throw new ValidationError(`${label}: invalid task contract (${plural(details.length, 'problem')})`, { details });
  }
  return { task: parsed.data, path: absolute, label, bytes };
}

/** Whether `verification.testFile` of an otherwise invalid contract exists: the line `resolveTask` would give once the rest is fixed. */
async function testFileProblem(value: unknown, label: string, root: string): Promise<string[]> {
  const testFile = (value as { verification?: { testFile?: unknown } } | null)?.verification?.testFile;
  if (typeof testFile !== 'string' || testFile.trim() === '' || testFile.includes('\0')) return [];
  try {
    await resolveRepoFile(testFile, { root, label: `${label}: verification.testFile` });
    return [];
  } catch (error) {
    // A path the schema refuses already has its line; only a missing file or one leading out is added.
    if (error instanceof FileNotFoundError || error instanceof PathEscapeError) {
      return TaskSchema.shape.verification.shape.testFile.safeParse(testFile).success ? [error.message] : [];
    }
    throw error;
  }
}

/** `1 problem`, `3 problems`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
