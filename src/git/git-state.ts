// Git's own settings, as the agent found them. Every check of ours asks git, and git obeys files the
// agent (same user, no sandbox) can write: the common `.git/config` shared by every worktree (a
// `filter.<x>.smudge` or `core.fsmonitor` command, `status.showUntrackedFiles=no`, an `include.path`),
// `.git/info/` (exclude, attributes, grafts, sparse-checkout), `.git/hooks/`, replace refs, the
// worktree's own `config.worktree`, the user's global config. A smudge filter or a replace ref lets an
// agent put content in the working tree that `git status` reports as unchanged, and the same files
// reach every later run and the user's own checkout. So they are read before the agent's turn and
// compared after it: any change ends the run, and the files are put back as they were.
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, readFile, readdir, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { accountHome } from '../util/account-home.js';
import path from 'node:path';
import { git } from './git.js';

/** One file or folder as it was: absent, a file (bytes and mode), a symlink, or a folder (its entries are listed apart). */
type Entry = { kind: 'absent' } | { kind: 'file'; bytes: Buffer; mode: number } | { kind: 'link'; target: string } | { kind: 'dir' };

export interface GitState {
  /** Absolute path → what was there; folders are listed with everything under them. */
  entries: Map<string, Entry>;
  /** The roots that were read (to find what appeared under them since). */
  roots: string[];
  /** Where the common git folder is, to name a path in a message (`.git/config`). */
  commonDir: string;
}

// Under the common git folder. Of `packed-refs` (an ordinary commit can repack refs) only the replace
// refs count (`git replace` then `git pack-refs --all`): a virtual entry, compared but never written back.
const PACKED_REPLACE = 'packed-refs#replace';
// Of `info/` only the files git reads for the tree: `info/refs` and `objects/info/packs` are written by
// git's own housekeeping (`gc --auto` in the background after a commit runs `update-server-info`) and
// change nothing git reports. Nor do packs, `logs/`, ORIG_HEAD, FETCH_HEAD or the maintenance files.
const INFO = ['info/exclude', 'info/attributes', 'info/sparse-checkout', 'info/grafts'];
const COMMON = [
  'config',
  'config.worktree',
  ...INFO,
  'hooks',
  'refs/replace',
  PACKED_REPLACE,
  'objects/info/alternates',
  'shallow',
  'commondir',
];
// Under the worktree's admin folder (`.git/worktrees/<name>/`): its own config and sparse-checkout list.
const ADMIN = ['config.worktree', ...INFO];
const MAX_FILE = 4 * 1024 * 1024; // a hook or a config larger than this is hashed, not kept

/** The git folders of `workspace` (common and, for a linked worktree, its admin folder) and the user's global config. */
async function stateRoots(
  workspace: string,
  env: NodeJS.ProcessEnv,
  known?: { commonDir: string; gitDir: string },
): Promise<{ roots: string[]; commonDir: string }> {
  const out = known ? null : await git(['rev-parse', '--path-format=absolute', '--git-common-dir', '--git-dir'], { cwd: workspace });
  const [common = '', own = ''] = out ? out.split('\n').map((line) => line.trim()) : [known!.commonDir, known!.gitDir];
  const roots = COMMON.map((p) => path.join(common, p));
  if (path.resolve(own) !== path.resolve(common)) roots.push(...ADMIN.map((p) => path.join(own, p)));
  // Where git itself looks for the global config: the caller's HOME, else the account's (os.homedir() would
  // read this process's HOME, not the environment git is given).
  const home = env.HOME ?? accountHome();
  const xdg = env.XDG_CONFIG_HOME || (home ? path.join(home, '.config') : null);
  const global = env.GIT_CONFIG_GLOBAL || (home ? path.join(home, '.gitconfig') : null);
  if (global) roots.push(global);
  if (xdg) roots.push(...['config', 'attributes', 'ignore'].map((name) => path.join(xdg, 'git', name)));
  return { roots, commonDir: common };
}

async function readEntry(file: string): Promise<Entry> {
  if (file.endsWith(PACKED_REPLACE)) {
    const text = await readFile(file.slice(0, -'#replace'.length), 'utf8').catch(() => '');
    const lines = text.split('\n').filter((line) => / refs\/replace\//.test(line));
    return lines.length === 0 ? { kind: 'absent' } : { kind: 'file', bytes: Buffer.from(lines.join('\n')), mode: -1 };
  }
  let stats;
  try {
    stats = await lstat(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' };
    throw error;
  }
  if (stats.isSymbolicLink()) return { kind: 'link', target: await readlink(file) };
  if (stats.isDirectory()) return { kind: 'dir' };
  if (stats.size > MAX_FILE) {
    const hash = createHash('sha256')
      .update(await readFile(file))
      .digest();
    return { kind: 'file', bytes: hash, mode: -1 }; // compared by hash, never written back
  }
  return { kind: 'file', bytes: await readFile(file), mode: stats.mode & 0o7777 };
}

async function walk(root: string, into: Map<string, Entry>): Promise<void> {
  const entry = await readEntry(root);
  into.set(root, entry);
  if (entry.kind !== 'dir') return;
  for (const name of (await readdir(root)).sort()) await walk(path.join(root, name), into);
}

/** Reads git's settings for `workspace` as they are now (before the agent's turn). */
export async function captureGitState(
  workspace: string,
  /** The caller's environment (the one git runs with): where the global config is. */
  env: NodeJS.ProcessEnv,
  /** The worktree's git folders when the caller has proven them already (worktreeGitDirs): git is not asked. */
  known?: { commonDir: string; gitDir: string },
): Promise<GitState> {
  const { roots, commonDir } = await stateRoots(workspace, env, known);
  const entries = new Map<string, Entry>();
  for (const root of roots) await walk(root, entries);
  return { entries, roots, commonDir };
}

function sameEntry(a: Entry, b: Entry): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'file' && b.kind === 'file') return a.mode === b.mode && a.bytes.equals(b.bytes);
  if (a.kind === 'link' && b.kind === 'link') return a.target === b.target;
  return true;
}

function shown(state: GitState, file: string): string {
  const inCommon = path.relative(state.commonDir, file);
  if (!inCommon.startsWith('..') && !path.isAbsolute(inCommon)) return `.git/${inCommon}`;
  return file;
}

/**
 * What differs from `before` (one line per path: `.git/config changed`, `.git/hooks/post-checkout
 * added`), sorted; empty when git's settings are as they were. With `restore`, each is put back.
 */
export async function gitStateChanges(before: GitState, options: { restore?: boolean } = {}): Promise<string[]> {
  const now = new Map<string, Entry>();
  for (const root of before.roots) await walk(root, now);
  const changes: { file: string; was: Entry; is: Entry }[] = [];
  for (const file of new Set([...before.entries.keys(), ...now.keys()])) {
    const was = before.entries.get(file) ?? { kind: 'absent' };
    const is = now.get(file) ?? { kind: 'absent' };
    if (!sameEntry(was, is)) changes.push({ file, was, is });
  }
  changes.sort((a, b) => a.file.localeCompare(b.file));
  // Only what was kept whole goes back: a hashed (large) file or the packed replace refs are named, never rewritten.
  const whole = (entry: Entry) => entry.kind !== 'file' || entry.mode >= 0;
  if (options.restore) await restore(changes.filter(({ was, is }) => whole(was) && whole(is)));
  // A folder that came or went is named through what is in it, when it holds anything.
  const named = changes.filter(({ file, was, is }) => {
    if (was.kind !== 'dir' && is.kind !== 'dir') return true;
    return !changes.some((other) => other.file.startsWith(`${file}${path.sep}`));
  });
  return named
    .map(({ file, was, is }) => {
      const verb = was.kind === 'absent' ? 'added' : is.kind === 'absent' ? 'removed' : 'changed';
      return `${shown(before, file)} ${verb}`;
    })
    .sort();
}

// New paths go deepest first (a file before its folder); old ones come back shallowest first.
async function restore(changes: { file: string; was: Entry; is: Entry }[]): Promise<void> {
  for (const { file, is } of [...changes].reverse()) {
    if (is.kind !== 'absent') await rm(file, { recursive: true, force: true });
  }
  for (const { file, was } of changes) {
    if (was.kind === 'dir') await mkdir(file, { recursive: true });
    else if (was.kind === 'link') await symlink(was.target, file);
    else if (was.kind === 'file' && was.mode >= 0) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, was.bytes, { mode: was.mode });
      await chmod(file, was.mode);
    }
  }
}
