// The app's own data in the repository (`app.writes` and the built-in dev-server writes), put back as
// the base commit has it: before the app starts, so nothing the agent left there reaches a verdict, and
// after the verifier, so nothing the app wrote reaches the stored change, `apply` or the next attempt.
import { chmod, lstat, mkdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { git, gitBytes, splitNul } from './git.js';
import { globMatcher } from '../util/glob-match.js';
import { symlinkOnTheWay } from '../util/symlink-on-the-way.js';
import { isUnderPrefix } from './path-prefix.js';
import { ELENCHOS_DIR } from './status.js';

export interface AppDataReset {
  /** Repository-relative paths written back from the base commit. */
  restored: string[];
  /** Repository-relative paths the base commit does not have, removed. */
  removed: string[];
}

/**
 * Puts every non-ignored path of `cwd` that `globs` match back as `base` has it (written back, or
 * removed when `base` lacks it). The file bytes are read from git's objects and written by us: a
 * checkout through git would run the filters the agent may have configured.
 */
export async function resetAppData(cwd: string, base: string, globs: readonly string[]): Promise<AppDataReset> {
  const done: AppDataReset = { restored: [], removed: [] };
  if (globs.length === 0) return done;
  const match = globMatcher(globs);
  // picomatch alone decides: git's `:(glob)` pathspec knows no braces or extglobs, and would leave such
  // paths out. Both listings cost what changed, not the size of the tree.
  const [changed, untracked] = await Promise.all([
    git(['diff', '--name-only', '-z', '--no-renames', '--no-ext-diff', '--no-textconv', base], { cwd }),
    git(['ls-files', '-z', '--others', '--exclude-standard'], { cwd }),
  ]);
  const listed = [...new Set([...splitNul(changed), ...splitNul(untracked)])].filter((p) => match(p) && !isUnderPrefix(p, [ELENCHOS_DIR]));
  // Never through a symlinked folder: `data -> /elsewhere` would have us delete and write outside the worktree.
  const paths: string[] = [];
  const seen = new Map<string, boolean>();
  for (const p of listed.sort()) if ((await symlinkOnTheWay(cwd, p, seen)) === null) paths.push(p);
  if (paths.length === 0) return done;
  const inBase = await baseEntries(cwd, base, paths);
  for (const p of paths) {
    const file = path.join(cwd, p);
    const entry = inBase.get(p);
    if (!entry) {
      await rm(file, { force: true, recursive: true });
      done.removed.push(p);
      continue;
    }
    if (await sameAsEntry(file, entry)) continue;
    await rm(file, { force: true, recursive: true });
    await mkdir(path.dirname(file), { recursive: true });
    if (entry.mode === '120000') await symlink(entry.bytes.toString('utf8'), file);
    else {
      await writeFile(file, entry.bytes);
      await chmod(file, entry.mode === '100755' ? 0o755 : 0o644);
    }
    done.restored.push(p);
  }
  return done;
}

interface BaseEntry {
  mode: string;
  bytes: Buffer;
}

// Paths per `git ls-tree` call: a large log folder must not reach the kernel's argument limit (E2BIG).
const LS_TREE_BATCH = 500;

/** Mode and bytes of each of `paths` that `base` has (a gitlink or a folder is left out: not app data). */
async function baseEntries(cwd: string, base: string, paths: string[]): Promise<Map<string, BaseEntry>> {
  const records: string[] = [];
  for (let i = 0; i < paths.length; i += LS_TREE_BATCH) {
    const batch = paths.slice(i, i + LS_TREE_BATCH).map((p) => `:(literal)${p}`);
    records.push(...splitNul(await git(['ls-tree', '-z', '--full-tree', base, '--', ...batch], { cwd })));
  }
  const entries = new Map<string, BaseEntry>();
  for (const record of records) {
    const tab = record.indexOf('\t');
    const [mode, type, oid] = record.slice(0, tab).split(' ') as [string, string, string];
    if (type !== 'blob') continue;
    entries.set(record.slice(tab + 1), { mode, bytes: await gitBytes(['cat-file', 'blob', oid], { cwd }) });
  }
  return entries;
}

async function sameAsEntry(file: string, entry: BaseEntry): Promise<boolean> {
  const stats = await lstat(file).catch(() => null);
  if (!stats) return false;
  if (entry.mode === '120000') return stats.isSymbolicLink() && (await readlink(file)) === entry.bytes.toString('utf8');
  if (!stats.isFile() || (entry.mode === '100755') !== ((stats.mode & 0o111) !== 0)) return false;
  return (await readFile(file)).equals(entry.bytes);
}
