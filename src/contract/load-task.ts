// Loads a task contract: parse, validate every key at once, and resolve its test file inside the repo.
import path from 'node:path';
import { ValidationError } from '../errors.js';
import { readJsonFile } from '../util/json-file.js';
import { formatZodIssues } from '../util/zod-issues.js';
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
    const details = formatZodIssues(label, parsed.error.issues);
    throw new ValidationError(`${label}: invalid task contract (${plural(details.length, 'problem')})`, { details });
  }
  return { task: parsed.data, path: absolute, label, bytes };
}

/** `1 problem`, `3 problems`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
