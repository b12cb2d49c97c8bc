// What git says about the working tree: HEAD, dirty paths, whether a file is committed.
import { git, gitBytes, splitNul } from './git.js';
import { isUnderPrefix } from './path-prefix.js';

/** Where Elenchos keeps runs and worktrees; never part of the user's changes. */
export const ELENCHOS_DIR = '.elenchos/';

export interface StatusEntry {
  /** Index status letter (`?` for untracked). */
  x: string;
  /** Working tree status letter. */
  y: string;
  /** Repository-relative POSIX path; a trailing `/` marks a nested repository git does not enter. */
  path: string;
  /** Source of a rename or copy (only without `noRenames`). */
  from?: string;
}

/** Parses `git status --porcelain=v1 -z` in `cwd`; untracked files are listed one by one. */
export async function statusEntries(cwd: string, options: { noRenames?: boolean } = {}): Promise<StatusEntry[]> {
  const args = ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=none'];
  if (options.noRenames) args.push('--no-renames');
  const fields = splitNul(await gitBytes(args, { cwd }));
  const entries: StatusEntry[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as string;
    const entry: StatusEntry = { x: field[0] ?? ' ', y: field[1] ?? ' ', path: field.slice(3) };
    // In -z output a rename or copy is followed by its source as a field of its own.
    if (entry.x === 'R' || entry.x === 'C' || entry.y === 'R' || entry.y === 'C') entry.from = fields[++i];
    entries.push(entry);
  }
  return entries;
}

/** The commit checked out in `cwd` (full sha). */
export async function headCommit(cwd: string): Promise<string> {
  return (await git(['rev-parse', '--verify', 'HEAD^{commit}'], { cwd })).trim();
}

export interface DirtyPathsOptions {
  /** Repository-relative path prefixes to leave out, in addition to `.elenchos/`. */
  ignore?: string[];
}

/** Staged, unstaged and untracked non-ignored paths, sorted; what makes a checkout "not clean". */
export async function dirtyPaths(root: string, options: DirtyPathsOptions = {}): Promise<string[]> {
  const prefixes = [ELENCHOS_DIR, ...(options.ignore ?? [])];
  const paths = new Set<string>();
  for (const entry of await statusEntries(root)) {
    for (const p of entry.from === undefined ? [entry.path] : [entry.path, entry.from]) {
      if (!isUnderPrefix(p, prefixes)) paths.add(p);
    }
  }
  return [...paths].sort();
}

/** Whether `relPath` is in the index (tracked), whatever its state in the working tree. */
export async function isTracked(root: string, relPath: string): Promise<boolean> {
  const out = await git(['--literal-pathspecs', 'ls-files', '--cached', '-z', '--', relPath], { cwd: root });
  return splitNul(out).includes(toPosix(relPath));
}

/** Whether `relPath` is a file in HEAD with no staged or unstaged change: "the test is committed". */
export async function isCommittedClean(root: string, relPath: string): Promise<boolean> {
  const posix = toPosix(relPath);
  const type = await git(['cat-file', '-t', `HEAD:${posix}`], { cwd: root }).catch(() => ''); // absent, or no commit yet
  if (type.trim() !== 'blob') return false;
  const out = await git(['--literal-pathspecs', 'status', '--porcelain=v1', '-z', '--', posix], { cwd: root });
  return out === '';
}

function toPosix(relPath: string): string {
  return relPath.replaceAll('\\', '/').replace(/^\.\//, '');
}
