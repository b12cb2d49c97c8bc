// Repository-relative globs matched against paths that may no longer exist (a watch event, a status
// line). fast-glob answers only by walking the disk; picomatch is the matcher it is built on.
import picomatch from 'picomatch';

/**
 * Whether a repository-relative path (POSIX separators) matches any of `globs` (dot files included). A glob
 * written `!glob` is an exception: a path it matches matches nothing (config schemas never let a user write
 * one; Elenchos adds them for what a verifier reads, see config/app-writes.ts).
 */
export function globMatcher(globs: readonly string[]): (repoPath: string) => boolean {
  const positive = globs.filter((g) => !g.startsWith('!'));
  const except = globs.filter((g) => g.startsWith('!')).map((g) => g.slice(1));
  if (positive.length === 0) return () => false;
  const match = picomatch(positive, { dot: true, ...(except.length > 0 ? { ignore: except } : {}) });
  return (repoPath) => match(repoPath.replace(/\/+$/, ''));
}

/** `path` as a glob that matches only itself (picomatch's special characters escaped). */
export function literalGlob(path: string): string {
  return path.replace(/[\\*?[\]{}()!+@]/g, '\\$&');
}

/** The folder part of a glob before its first wildcard (`data/db.json` → `data/db.json`, `log/**` → `log`). */
export function globBase(glob: string): { base: string; isGlob: boolean } {
  const { base, isGlob } = picomatch.scan(glob);
  return { base, isGlob };
}
