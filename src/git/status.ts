// What git says about the working tree: HEAD, dirty paths, whether a file is committed.
import { git, gitBytes, splitNul } from './git.js';
import { isUnderPrefix } from './path-prefix.js';
import { ELENCHOS_DIR_NAME } from './layout-names.js';

/** Where Elenchos keeps runs and worktrees; never part of the user's changes. */
export const ELENCHOS_DIR = `${ELENCHOS_DIR_NAME}/`;

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

export interface StatusResult {
  /** HEAD's full sha, or null before the first commit. */
  head: string | null;
  entries: StatusEntry[];
}

// Fields before the path in each porcelain v2 record type (`1` changed, `2` renamed, `u` unmerged).
const V2_FIELDS_BEFORE_PATH: Record<string, number> = { '1': 8, '2': 9, u: 10, '?': 1, '!': 1 };

/**
 * Reads HEAD and every staged, unstaged and untracked path of `cwd` in one git process
 * (`git status --porcelain=v2 --branch -z`): on a busy machine starting git costs as much as the
 * status itself, and this runs twice per attempt. Untracked files are listed one by one.
 */
export async function readStatus(cwd: string, options: { noRenames?: boolean; indexFile?: string } = {}): Promise<StatusResult> {
  // Repository config is writable by the agent: no fsmonitor or untracked cache may answer for the disk.
  const args = [
    '-c',
    'core.fsmonitor=false',
    '-c',
    'core.untrackedCache=false',
    'status',
    '--porcelain=v2',
    '--branch',
    '-z',
    '--untracked-files=all',
    '--ignore-submodules=none',
  ];
  if (options.noRenames) args.push('--no-renames');
  const fields = splitNul(await gitBytes(args, { cwd, indexFile: options.indexFile }));
  const result: StatusResult = { head: null, entries: [] };
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as string;
    if (field.startsWith('# branch.oid ')) {
      const oid = field.slice('# branch.oid '.length);
      result.head = /^[0-9a-f]{40,64}$/.test(oid) ? oid : null;
      continue;
    }
    const before = V2_FIELDS_BEFORE_PATH[field[0] as string];
    if (before === undefined) continue; // other headers
    let cut = -1;
    for (let n = 0; n < before; n++) cut = field.indexOf(' ', cut + 1);
    const path = field.slice(cut + 1);
    // v2 writes `.` for "unchanged"; callers compare with v1's letters, where that is a space.
    const xy = field[0] === '?' ? '??' : field[0] === '!' ? '!!' : field.slice(2, 4).replaceAll('.', ' ');
    const entry: StatusEntry = { x: xy[0] as string, y: xy[1] as string, path };
    // A rename or copy record is followed by its source as a field of its own.
    if (field[0] === '2') entry.from = fields[++i];
    result.entries.push(entry);
  }
  return result;
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
  return dirtyAmong((await readStatus(root)).entries, options);
}

/** `root`'s HEAD and dirty paths, read once. */
export interface CheckoutState {
  /** HEAD's full sha; null before the first commit, or when git could not say. */
  head: Promise<string | null>;
  /** Staged, unstaged and untracked paths (as dirtyPaths); rejects with git's own failure. */
  dirty: Promise<string[]>;
}

/**
 * Starts reading the checkout's HEAD and dirty paths, both from one `git status` (a run's preflight, or
 * every task of one `verify`, which all verify the same commit).
 */
export function readCheckoutState(root: string): CheckoutState {
  const status = readStatus(root);
  const dirty = status.then((s) => dirtyAmong(s.entries));
  dirty.catch(() => undefined); // awaited where the answer is needed; a failure before then is not an unhandled rejection
  return { head: status.then((s) => s.head).catch(() => null), dirty };
}

function dirtyAmong(entries: readonly StatusEntry[], options: DirtyPathsOptions = {}): string[] {
  const prefixes = [ELENCHOS_DIR, ...(options.ignore ?? [])];
  const paths = new Set<string>();
  for (const entry of entries) {
    for (const p of entry.from === undefined ? [entry.path] : [entry.path, entry.from]) {
      if (!isUnderPrefix(p, prefixes)) paths.add(p);
    }
  }
  return [...paths].sort();
}

/** Which of `relPaths` are files in HEAD, in one git call (on a clean tree: "committed"). */
export async function filesInHead(root: string, relPaths: readonly string[]): Promise<Set<string>> {
  return (await gitTracking(root, relPaths, { index: false })).inHead;
}

/** What git tracks among some paths: the files in HEAD and the paths in the index. */
export interface Tracking {
  inHead: Set<string>;
  inIndex: Set<string>;
}

/** Which of `relPaths` are files in HEAD and which are in the index, both asked of git at once (`index: false`: HEAD only). */
export async function gitTracking(root: string, relPaths: readonly string[], asked: { index?: boolean } = {}): Promise<Tracking> {
  if (relPaths.length === 0) return { inHead: new Set(), inIndex: new Set() };
  const paths = relPaths.map(toPosix);
  const [head, index] = await Promise.all([
    git(['--literal-pathspecs', 'ls-tree', '-r', '--name-only', '-z', 'HEAD', '--', ...paths], { cwd: root }).catch(() => ''),
    asked.index === false ? '' : git(['--literal-pathspecs', 'ls-files', '--cached', '-z', '--', ...paths], { cwd: root }).catch(() => ''),
  ]);
  return { inHead: new Set(splitNul(head)), inIndex: new Set(splitNul(index)) };
}

function toPosix(relPath: string): string {
  return relPath.replaceAll('\\', '/').replace(/^\.\//, '');
}
