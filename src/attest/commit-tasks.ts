// The task set a commit's config names: `verify`'s own selection (core/verify/select-tasks.ts), asked of the
// commit's tree instead of the disk, so that an attestation can be compared with it.
import path from 'node:path';
import fg from 'fast-glob';
import picomatch from 'picomatch';
import { ELENCHOS_DIR_NAME } from '../evidence/layout.js';

// The same exclusions as selectTasks: dependencies, Elenchos's own folder, test locks.
const IGNORED = ['**/node_modules/**', `${ELENCHOS_DIR_NAME}/**`, '**/*.lock.json'];

/** The task files (repository-relative, sorted) `patterns` select among `files`, as `verify` would on a checkout of that commit. */
export function selectTasksInTree(patterns: readonly string[], files: readonly string[]): string[] {
  const found = new Set<string>();
  const ignored = picomatch(IGNORED);
  for (const pattern of patterns) {
    if (!fg.isDynamicPattern(pattern)) {
      // A literal path is taken as named (selectTasks does not check that it exists: the run refuses it).
      found.add(path.posix.normalize(pattern.replace(/^\.\//, '')));
      continue;
    }
    // fast-glob's defaults: no dot files unless the pattern says so.
    const match = picomatch(pattern.replace(/^\.\//, ''));
    for (const file of files) if (match(file) && !ignored(file)) found.add(file);
  }
  return [...found].sort();
}
