// The path rule: every file a contract names stays inside the repository, symlinks included.
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { FileNotFoundError, PathEscapeError } from '../errors.js';

export interface RepoPathOptions {
  /** Repository root (the main checkout or a worktree). */
  root: string;
  /** Name shown in errors: `tasks/x.json: verification.testFile`. */
  label: string;
}

/** Resolves a repo-relative path, rejecting `..` escapes, absolute paths and symlinks out; returns the absolute path. */
export async function resolveRepoFile(relative: string, options: RepoPathOptions): Promise<string> {
  const { root, label } = options;
  const normalized = checkRepoRelative(relative, label);
  const absolute = path.join(root, normalized);
  let real: string;
  try {
    real = await realpath(absolute);
  } catch (error) {
    throw new FileNotFoundError(`${label}: "${relative}" does not exist; create it or fix the path`, { cause: error });
  }
  const realRoot = await realpath(root);
  if (!isInside(realRoot, real)) {
    throw new PathEscapeError(
      `${label}: "${relative}" is a symlink that leads outside the repository (to ${real}); commit the file itself`,
    );
  }
  const info = await stat(real);
  if (!info.isFile()) {
    throw new FileNotFoundError(`${label}: "${relative}" is not a file; point it at the test file`);
  }
  return absolute;
}

/** Checks a path's shape without touching the disk; returns it normalized with forward slashes. */
export function checkRepoRelative(relative: string, label: string): string {
  if (path.isAbsolute(relative) || /^[A-Za-z]:[\\/]/.test(relative)) {
    throw new PathEscapeError(`${label}: "${relative}" is absolute; use a path relative to the repository root`);
  }
  const normalized = path.posix.normalize(relative.replaceAll('\\', '/'));
  if (normalized === '..' || normalized.startsWith('../')) {
    throw new PathEscapeError(`${label}: "${relative}" leads outside the repository; keep it inside the repository root`);
  }
  return normalized;
}

/** True when `child` is `parent` or below it. */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
