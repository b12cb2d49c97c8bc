// Repository-relative globs matched against paths that may no longer exist (a watch event, a status
// line). fast-glob answers only by walking the disk; picomatch is the matcher it is built on.
import picomatch from 'picomatch';

/** Whether a repository-relative path (POSIX separators) matches any of `globs` (dot files included). */
export function globMatcher(globs: readonly string[]): (repoPath: string) => boolean {
  if (globs.length === 0) return () => false;
  const match = picomatch([...globs], { dot: true });
  return (repoPath) => match(repoPath.replace(/\/+$/, ''));
}

/** The folder part of a glob before its first wildcard (`data/db.json` → `data/db.json`, `log/**` → `log`). */
export function globBase(glob: string): { base: string; isGlob: boolean } {
  const { base, isGlob } = picomatch.scan(glob);
  return { base, isGlob };
}
