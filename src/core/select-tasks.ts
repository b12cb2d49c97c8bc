// Which task contracts `verify` checks: the paths or globs given, else the config's `tasks`, then a shard.
import path from 'node:path';
import { InputError } from '../errors.js';
import { ELENCHOS_DIR_NAME } from '../evidence/layout.js';
import { MAX_SHARDS } from './shard-limit.js';

export { MAX_SHARDS };

export interface Shard {
  index: number;
  count: number;
}

/** Parses `i/n` (1 ≤ i ≤ n ≤ MAX_SHARDS). */
export function parseShard(value: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(value);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count)
    throw new InputError(`--shard "${value}" must look like i/n with 1 ≤ i ≤ n (for example 2/4)`);
  if (count > MAX_SHARDS) throw new InputError(`--shard "${value}": at most ${MAX_SHARDS} shards; split into fewer`);
  return { index, count };
}

/**
 * fast-glob, loaded only for a pattern it could call dynamic: one without any of its special characters
 * (`* ? [ ( { !` or an escape) never is, and a plain task file then costs no glob package to load.
 */
async function globberFor(pattern: string): Promise<typeof import('fast-glob') | null> {
  return /[\\*?[({!]/.test(pattern) ? (await import('fast-glob')).default : null;
}

/** Task files (absolute, sorted, unique) matched by `patterns` under `base`; a glob never matches a test lock (`*.lock.json`). */
export async function selectTasks(patterns: readonly string[], base: string, shard?: Shard): Promise<string[]> {
  const found = new Set<string>();
  for (const pattern of patterns) {
    if (pattern.trim() === '')
      throw new InputError('an empty task file or glob was given; pass a task file (tasks/x.json) or a glob (tasks/*.json)');
    const fg = await globberFor(pattern);
    const matches = fg?.isDynamicPattern(pattern)
      ? await fg(pattern, {
          cwd: base,
          absolute: true,
          onlyFiles: true,
          ignore: ['**/node_modules/**', `${ELENCHOS_DIR_NAME}/**`, '**/*.lock.json'],
        })
      : [path.resolve(base, pattern)];
    for (const file of matches) found.add(file);
  }
  const sorted = [...found].sort();
  return shard ? shardOf(sorted, shard) : sorted;
}

/** Shard i of n of a sorted list: deterministic across machines, every n-th item from the i-th. */
export function shardOf<T>(sorted: readonly T[], shard: Shard): T[] {
  return sorted.filter((_, i) => i % shard.count === shard.index - 1);
}
