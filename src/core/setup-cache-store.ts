// One setup cache entry on disk: `.elenchos/cache/<key>/files/…` plus a manifest written last. Saved
// from a worktree by copying, restored by copying with every byte checked against the manifest.
import { chmod, lstat, mkdir, mkdtemp, readFile, readdir, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { processAliveSince } from '../process/proc-stat.js';
import { mapLimit } from '../util/map-limit.js';
import { sha256 } from '../util/sha256.js';
import { readNoFollow, statSignature, walkTree, type ManifestEntry } from '../util/tree-manifest.js';
import { platformTag } from './setup-cache-key.js';

export interface CacheManifest {
  version: 1;
  key: string;
  platform: string;
  paths: string[];
  entries: ManifestEntry[];
  /** sha256 of the rest: an edited manifest no longer matches itself. */
  digest: string;
}

export type ManifestRead = { ok: true; manifest: CacheManifest } | { ok: false; exists: boolean; reason: string };
export type StoreResult = { ok: true; files: number; bytes: number } | { ok: false; reason: string };
export type RestoreResult = { ok: true; files: number; bytes: number; signatures: Map<string, string> } | { ok: false; reason: string };

const entryDir = (cacheDir: string, key: string) => path.join(cacheDir, key);
const filesDir = (cacheDir: string, key: string) => path.join(cacheDir, key, 'files');

function digestOf(manifest: Omit<CacheManifest, 'digest'>): string {
  return sha256(JSON.stringify([manifest.version, manifest.key, manifest.platform, manifest.paths, manifest.entries]));
}

/** The manifest of the entry for `key`: missing, unreadable, edited, or for another key are all "not ok". */
export async function readCacheManifest(cacheDir: string, key: string): Promise<ManifestRead> {
  let text: string;
  try {
    text = await readFile(path.join(entryDir(cacheDir, key), 'manifest.json'), 'utf8');
  } catch {
    return { ok: false, exists: false, reason: 'no entry' };
  }
  try {
    const manifest = JSON.parse(text) as CacheManifest;
    const { digest, ...rest } = manifest;
    if (manifest.version !== 1 || manifest.key !== key || !Array.isArray(manifest.entries) || digest !== digestOf(rest))
      return { ok: false, exists: true, reason: 'the manifest was edited or is not for this key' };
    const outside = manifest.entries.find((entry) => !insidePaths(entry, manifest.paths));
    if (outside) return { ok: false, exists: true, reason: `the manifest names ${outside.path}, outside setup.cache.paths` };
    return { ok: true, manifest };
  } catch {
    return { ok: false, exists: true, reason: 'the manifest is not valid JSON' };
  }
}

// A manifest that passed its digest could still have been rewritten whole: never write outside the paths.
function insidePaths(entry: ManifestEntry, paths: readonly string[]): boolean {
  const clean = path.posix.normalize(entry.path);
  if (clean !== entry.path || clean.split('/').includes('..') || path.posix.isAbsolute(clean)) return false;
  if (!paths.some((top) => clean === top || clean.startsWith(`${top}/`))) return false;
  if (entry.type !== 'symlink') return true;
  const target = entry.target ?? '';
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(clean), target));
  return target !== '' && !path.posix.isAbsolute(target) && resolved !== '..' && !resolved.startsWith('../');
}

/**
 * Copies `paths` from `workspace` into a new entry for `key`, hashing each file from the same read
 * that copies it, and publishes it by one rename once complete. Refuses trees with a symlink leaving
 * the worktree. Stored files are read-only, so a stray write through a symlink fails loudly.
 */
export async function saveCacheEntry(
  cacheDir: string,
  key: string,
  workspace: string,
  paths: readonly string[],
  signatures?: Map<string, string>,
): Promise<StoreResult> {
  await mkdir(cacheDir, { recursive: true });
  await pruneLeftovers(cacheDir);
  const stage = await mkdtemp(path.join(cacheDir, `.saving-${process.pid}-`));
  try {
    let bytes = 0;
    const walked = await walkTree(workspace, paths, {
      signatures,
      onFile: async (entry, data) => {
        const target = path.join(stage, 'files', entry.path);
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, data, { flag: 'wx', mode: entry.mode & 0o555 });
        bytes += data.length;
      },
    });
    if (!walked.ok) return { ok: false, reason: walked.reason };
    const body = { version: 1 as const, key, platform: platformTag(), paths: [...paths], entries: walked.entries };
    await writeFile(path.join(stage, 'manifest.json'), JSON.stringify({ ...body, digest: digestOf(body) }));
    const files = walked.entries.filter((entry) => entry.type === 'file').length;
    try {
      await rename(stage, entryDir(cacheDir, key));
    } catch (error) {
      // Another run saved the same key first: its entry is as good as ours.
      if (!['ENOTEMPTY', 'EEXIST'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    }
    return { ok: true, files, bytes };
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

/**
 * Recreates the entry's tree in `workspace` (where none of its paths exist), by copying: never a
 * link into the cache, which an agent could write through. Each file's bytes are checked against the
 * manifest before they are written, so a tampered or truncated entry stops the restore.
 */
export async function restoreCacheEntry(cacheDir: string, manifest: CacheManifest, workspace: string): Promise<RestoreResult> {
  const source = filesDir(cacheDir, manifest.key);
  const dirs = manifest.entries.filter((entry) => entry.type === 'dir');
  const umask = currentUmask();
  try {
    for (const top of manifest.paths) await mkdir(path.dirname(path.join(workspace, top)), { recursive: true });
    for (const dir of dirs) await mkdir(path.join(workspace, dir.path));
    let bytes = 0;
    const signatures = new Map<string, string>();
    const leaves = manifest.entries.filter((entry) => entry.type !== 'dir');
    await mapLimit(leaves, 16, async (entry) => {
      const target = path.join(workspace, entry.path);
      if (entry.type === 'symlink') return symlink(entry.target ?? '', target);
      const data = await readNoFollow(path.join(source, entry.path));
      if (data.length !== entry.size || sha256(data) !== entry.sha256) throw new TamperedError(`${entry.path} differs from the manifest`);
      // wx: never through anything planted at the name (there is nothing there: the paths were removed).
      await writeFile(target, data, { flag: 'wx', mode: entry.mode });
      // The umask may have taken bits the entry has (one more syscall only then).
      if ((entry.mode & ~umask) !== entry.mode) await chmod(target, entry.mode);
      signatures.set(entry.path, statSignature(await lstat(target, { bigint: true })));
      bytes += data.length;
    });
    // Modes last, deepest first: a read-only directory would refuse the files going into it.
    for (const dir of [...dirs].reverse()) if ((dir.mode & ~umask) !== dir.mode) await chmod(path.join(workspace, dir.path), dir.mode);
    return { ok: true, files: leaves.length, bytes, signatures };
  } catch (error) {
    const reason = error instanceof TamperedError ? error.message : `restore failed: ${(error as Error).message}`;
    return { ok: false, reason };
  }
}

class TamperedError extends Error {}

// Reading the umask with process.umask() is documentation-deprecated (DEP0139) only; setting it to read
// it back would change it for every file other runs create meanwhile.
function currentUmask(): number {
  return process.umask();
}

// What a killed save or discard left: a stage whose process is gone, a discarded entry not yet deleted.
async function pruneLeftovers(cacheDir: string): Promise<void> {
  for (const name of await readdir(cacheDir).catch(() => [] as string[])) {
    const saving = /^\.saving-(\d+)-/.exec(name);
    if ((saving && !processAliveSince(Number(saving[1]), null)) || name.startsWith('.discarded-'))
      await rm(path.join(cacheDir, name), { recursive: true, force: true });
  }
}

/** Removes the entry for `key` (moved aside first, so no reader sees it half deleted). */
export async function discardCacheEntry(cacheDir: string, key: string): Promise<void> {
  const aside = path.join(cacheDir, `.discarded-${key}-${process.pid}-${Date.now()}`);
  const moved = await rename(entryDir(cacheDir, key), aside).then(
    () => true,
    () => false,
  );
  await rm(moved ? aside : entryDir(cacheDir, key), { recursive: true, force: true });
}

/** Removes `paths` from `workspace` (a symlink itself, never what it points to). */
export async function removePaths(workspace: string, paths: readonly string[]): Promise<void> {
  for (const rel of paths) await rm(path.join(workspace, rel), { recursive: true, force: true });
}

const STAMPS_KEPT = 16;
// Stamps belong to the worktree's folder itself (device and inode), not to its path: a warm worktree
// moves from the pool to a run's path and back by rename, which keeps its inode and its files' ctimes.
// Safety does not rest on this: every file's own signature (inode, ctime…) must still match.
async function worktreeIdentity(workspace: string): Promise<string> {
  const info = await stat(workspace);
  return `${info.dev}:${info.ino}`;
}
const stampFile = (cacheDir: string, key: string, identity: string) =>
  path.join(entryDir(cacheDir, key), 'stamps', `${sha256(identity).slice(0, 32)}.json`);

/**
 * Records the stat signatures of `workspace`'s cache paths just after they were proven equal to the
 * entry (restored, saved or verified), so a warm worktree's next check re-reads only changed files.
 * Only the newest few worktrees' stamps are kept.
 */
export async function writeStamps(
  cacheDir: string,
  key: string,
  workspace: string,
  signatures: ReadonlyMap<string, string>,
  /** The stamps read before the check: when nothing changed, the file is only touched (its age orders eviction). */
  previous?: ReadonlyMap<string, string>,
): Promise<void> {
  const identity = await worktreeIdentity(workspace);
  const file = stampFile(cacheDir, key, identity);
  if (previous && sameSignatures(previous, signatures)) {
    const now = new Date();
    if (
      await utimes(file, now, now).then(
        () => true,
        () => false,
      )
    )
      return;
  }
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify({ identity, signatures: Object.fromEntries(signatures) }));
  const names = await readdir(path.dirname(file));
  if (names.length <= STAMPS_KEPT) return;
  const aged = await Promise.all(
    names.map(async (name) => ({ name, at: (await stat(path.join(path.dirname(file), name)).catch(() => null))?.mtimeMs ?? 0 })),
  );
  aged.sort((a, b) => b.at - a.at);
  for (const { name } of aged.slice(STAMPS_KEPT)) await rm(path.join(path.dirname(file), name), { force: true });
}

function sameSignatures(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [file, signature] of b) if (a.get(file) !== signature) return false;
  return true;
}

/** The signatures last recorded for `workspace` under `key` (empty when none). */
export async function readStamps(cacheDir: string, key: string, workspace: string): Promise<Map<string, string>> {
  try {
    const identity = await worktreeIdentity(workspace);
    const value = JSON.parse(await readFile(stampFile(cacheDir, key, identity), 'utf8')) as {
      identity?: unknown;
      signatures?: Record<string, unknown>;
    };
    if (value.identity !== identity || typeof value.signatures !== 'object' || value.signatures === null) return new Map();
    return new Map(Object.entries(value.signatures).filter((pair): pair is [string, string] => typeof pair[1] === 'string'));
  } catch {
    return new Map();
  }
}
