// One setup cache entry on disk: `.elenchos/cache/<key>/files/…` plus a manifest written last. Saved
// from a worktree by copying, restored by copying with every byte checked against the manifest.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, open, readdir, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { processAliveSince } from '../../process/process-table.js';
import { EVIDENCE_FILE_LIMIT } from '../../util/json-file.js';
import { mapLimit } from '../../util/map-limit.js';
import { readRegularFile } from '../../util/regular-file.js';
import { sha256 } from '../../util/sha256.js';
import { readNoFollow, readWithSignature, scanTree, statSignature, type ManifestEntry } from '../../util/tree-manifest.js';
import { platformTag } from './setup-cache-key.js';
import { setupCacheEntryFiles } from '../../evidence/layout.js';
import { cacheHmac, cacheHmacValid } from './setup-cache-auth.js';

export interface CacheManifest {
  version: 1;
  key: string;
  platform: string;
  paths: string[];
  entries: ManifestEntry[];
  /** sha256 of the rest: an edited manifest no longer matches itself. */
  digest: string;
  /** HMAC of `digest` with the machine's cache key (setup-cache-auth.ts): a recomputed digest does not pass. */
  hmac: string;
}

export type ManifestRead = { ok: true; manifest: CacheManifest } | { ok: false; exists: boolean; reason: string };
export type StoreResult = { ok: true; files: number; bytes: number } | { ok: false; reason: string };
export type RestoreResult = { ok: true; files: number; bytes: number; signatures: Map<string, string> } | { ok: false; reason: string };

const entryDir = (cacheDir: string, key: string) => path.join(cacheDir, key);
const filesDir = (cacheDir: string, key: string) => setupCacheEntryFiles(entryDir(cacheDir, key)).files;

// What the HMAC covers: the entry's key and its manifest's digest (which covers every other field).
const signedText = (key: string, digest: string) => `elenchos-setup-cache-v1\n${key}\n${digest}`;

function digestOf(manifest: Omit<CacheManifest, 'digest' | 'hmac'>): string {
  return sha256(JSON.stringify([manifest.version, manifest.key, manifest.platform, manifest.paths, manifest.entries]));
}

// Manifests already checked by this process, by file and the stat signature (inode, size, mode, ctime,
// mtime) of the file they were read from: a warm verify checks the same entry for every task, and
// parsing it, its digest and its paths cost more than the kept tree's own lstat walk. Any rewrite of
// the file, even with its size and mtime put back, or a file renamed over it, gives it another
// signature (no process can set a ctime), so it is read and checked again. Callers never modify one.
/** A manifest or stamp file is a few hundred bytes an entry: one past this is no file of ours. */
const MANIFEST_LIMIT = EVIDENCE_FILE_LIMIT;

const checkedManifests = new Map<string, { signature: string; keyFile: string; manifest: CacheManifest }>();

/**
 * The manifest of the entry for `key`, signed with the machine key in `keyFile`: missing, unreadable,
 * edited, for another key or signed with another key are all "not ok".
 */
export async function readCacheManifest(cacheDir: string, key: string, keyFile: string): Promise<ManifestRead> {
  const file = setupCacheEntryFiles(entryDir(cacheDir, key)).manifest;
  let text: string;
  let signature: string;
  try {
    // One descriptor for the signature and the bytes: the signature is that of the very file read. Opened
    // without waiting (a FIFO put there returns at once) and refused unless a regular file of sane size:
    // the cache folder is in the repository, where an agent without the sandbox can write.
    const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const info = await handle.stat({ bigint: true });
      if (!info.isFile() || info.size > BigInt(MANIFEST_LIMIT))
        return { ok: false, exists: true, reason: 'the manifest is not a file of sane size' };
      signature = statSignature(info);
      const checked = checkedManifests.get(file);
      if (checked?.signature === signature && checked.keyFile === keyFile && checked.manifest.key === key)
        return { ok: true, manifest: checked.manifest };
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return { ok: false, exists: false, reason: 'no entry' };
  }
  const read = parseManifest(text, key, keyFile);
  if (read.ok) checkedManifests.set(file, { signature, keyFile, manifest: read.manifest });
  else checkedManifests.delete(file);
  return read;
}

function parseManifest(text: string, key: string, keyFile: string): ManifestRead {
  try {
    const manifest = JSON.parse(text) as CacheManifest;
    const { digest, hmac, ...rest } = manifest;
    if (manifest.version !== 1 || manifest.key !== key || !Array.isArray(manifest.entries) || digest !== digestOf(rest))
      return { ok: false, exists: true, reason: 'the manifest was edited or is not for this key' };
    const outside = manifest.entries.find((entry) => !insidePaths(entry, manifest.paths));
    if (outside) return { ok: false, exists: true, reason: `the manifest names ${outside.path}, outside setup.cache.paths` };
    if (!cacheHmacValid(signedText(key, digest), hmac, keyFile))
      return {
        ok: false,
        exists: true,
        reason: "the manifest does not carry this machine's cache key signature (written or rewritten by something other than Elenchos)",
      };
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
 * What a setup produced, recorded before anything else runs in the worktree: the tree's structure,
 * modes and symlink targets, and each file's stat signature (inode, size, mode, ctime, mtime). No
 * file is read. Files are copied later (saveFromSnapshot), each proven unchanged since by its signature.
 */
export interface SaveSnapshot {
  paths: string[];
  /** Files without size or hash: those come from the copy. */
  entries: ManifestEntry[];
  signatures: Map<string, string>;
  /** The worktree folder's identity, for its stamps (it may have moved by the time the copy ends). */
  identity: string;
}

export type SnapshotResult = { ok: true; snapshot: SaveSnapshot } | { ok: false; reason: string };

// How long the file system clock may take to pass the setup's last write (one tick: ms; 1 s on coarse file systems).
const CLOCK_WAIT_MS = 3000;

/**
 * Records `paths` of `workspace` as setup left them (see SaveSnapshot). Returns only once the file
 * system's clock has moved past every file's ctime, so any later change to a file (by an agent, an
 * app, anyone) gives it a ctime, hence a signature, it did not have here: no process can set a ctime.
 */
export async function snapshotForSave(workspace: string, paths: readonly string[]): Promise<SnapshotResult> {
  const signatures = new Map<string, string>();
  const scanned = await scanTree(workspace, paths, signatures);
  if (!scanned.ok) return scanned;
  // On the worktree's own file system (its parent folder): another one could have a coarser clock.
  if (!(await clockPassed(path.dirname(workspace), scanned.maxCtimeNs)))
    return { ok: false, reason: `the file system clock did not move past the setup's last write within ${CLOCK_WAIT_MS} ms` };
  return { ok: true, snapshot: { paths: [...paths], entries: scanned.entries, signatures, identity: await worktreeIdentity(workspace) } };
}

// Writes a marker until its ctime is later than `ctimeNs` (at most one clock tick; racy git's problem).
async function clockPassed(dir: string, ctimeNs: bigint): Promise<boolean> {
  const marker = path.join(dir, `.elenchos-clock-${process.pid}-${randomBytes(4).toString('hex')}`);
  const handle = await open(marker, 'wx');
  try {
    const deadline = Date.now() + CLOCK_WAIT_MS;
    for (;;) {
      await handle.write('.');
      if ((await handle.stat({ bigint: true })).ctimeNs > ctimeNs) return true;
      if (Date.now() > deadline) return false;
      await sleep(1);
    }
  } finally {
    await handle.close();
    await rm(marker, { force: true });
  }
}

export interface SaveOptions {
  /** The machine's cache key file (util/secret-paths.ts: cacheKeyPath of the caller's environment): signs the entry. */
  keyFile: string;
  /** Stops the copy: nothing is published. */
  signal?: AbortSignal;
  /** Test seam: runs between reading a file and checking its signature (a write racing the copy). */
  afterRead?: (rel: string) => Promise<void>;
  /** Files copied at once (a background copy takes few, to leave the machine to the agent). */
  concurrency?: number;
}

/**
 * Copies what `snapshot` recorded into a new entry for `key`, hashing each file from the read that
 * copies it, and publishes it by one rename once complete, only if every file read still had the
 * signature it had in the snapshot (so its bytes are the setup's). Directories, modes and symlinks
 * come from the snapshot itself, so what was added, removed, relinked or chmod-ed since is ignored or
 * refused, never saved. Stored files are read-only, so a stray write through a symlink fails loudly.
 */
export async function saveFromSnapshot(
  cacheDir: string,
  key: string,
  workspace: string,
  snapshot: SaveSnapshot,
  options: SaveOptions,
): Promise<StoreResult> {
  await mkdir(cacheDir, { recursive: true });
  await pruneLeftovers(cacheDir);
  const stage = await mkdtemp(path.join(cacheDir, `.saving-${process.pid}-`));
  try {
    const entries = snapshot.entries.map((entry) => ({ ...entry }));
    const staged = setupCacheEntryFiles(stage).files;
    for (const top of snapshot.paths) await mkdir(path.dirname(path.join(staged, top)), { recursive: true });
    // Pre-order: a folder comes before what is in it.
    for (const entry of entries) if (entry.type === 'dir') await mkdir(path.join(staged, entry.path));
    let bytes = 0;
    let changed: string | null = null;
    await mapLimit(
      entries.filter((entry) => entry.type === 'file'),
      options.concurrency ?? 16,
      async (entry) => {
        if (changed || options.signal?.aborted) return;
        const afterRead = options.afterRead;
        const read = await readWithSignature(path.join(workspace, entry.path), afterRead && (() => afterRead(entry.path))).catch(
          (error: unknown) => ({ error }),
        );
        if ('error' in read) {
          changed ??= `${entry.path} could not be read after setup (${(read.error as NodeJS.ErrnoException).code ?? String(read.error)})`;
          return;
        }
        if (read.signature !== snapshot.signatures.get(entry.path)) {
          changed ??= `${entry.path} changed after setup, before it was copied`;
          return;
        }
        entry.size = read.data.length;
        entry.sha256 = sha256(read.data);
        await writeFile(path.join(staged, entry.path), read.data, { flag: 'wx', mode: entry.mode & 0o555 });
        bytes += read.data.length;
      },
    );
    if (changed) return { ok: false, reason: changed };
    if (options.signal?.aborted) return { ok: false, reason: String(options.signal.reason ?? 'abandoned') };
    const body = { version: 1 as const, key, platform: platformTag(), paths: [...snapshot.paths], entries };
    const digest = digestOf(body);
    await writeFile(
      setupCacheEntryFiles(stage).manifest,
      JSON.stringify({ ...body, digest, hmac: cacheHmac(signedText(key, digest), options.keyFile) }),
    );
    const files = entries.filter((entry) => entry.type === 'file').length;
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

// What a killed save or discard left: a stage or a discarded tree whose process is gone (a live
// process is still deleting its own).
export async function pruneLeftovers(cacheDir: string): Promise<void> {
  for (const name of await readdir(cacheDir).catch(() => [] as string[])) {
    const owner = /^\.(?:saving|discarded-kept|discarded-[0-9a-f]{64})-(\d+)-/.exec(name);
    if (owner && !processAliveSince(Number(owner[1]), null)) await rm(path.join(cacheDir, name), { recursive: true, force: true });
  }
}

/** Records that the entry for `key` was just used (gc keeps recently used entries); never fails a run. */
export async function markUsed(cacheDir: string, key: string): Promise<void> {
  await writeFile(setupCacheEntryFiles(entryDir(cacheDir, key)).lastUsed, new Date().toISOString()).catch(() => undefined);
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

/**
 * Moves `paths` out of `workspace` into the cache folder (`.discarded-…`, one rename each) and
 * deletes them there in the background; on another file system (a rename cannot cross) it deletes
 * them in place. Whatever a killed process left there is removed by the next save or `gc`.
 */
export async function setAside(cacheDir: string, workspace: string, paths: readonly string[]): Promise<void> {
  for (const rel of paths) {
    const aside = path.join(cacheDir, `.discarded-kept-${process.pid}-${randomBytes(6).toString('hex')}`);
    const moved = await rename(path.join(workspace, rel), aside).then(
      () => true,
      (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
    );
    if (moved) void rm(aside, { recursive: true, force: true }).catch(() => undefined);
    else await rm(path.join(workspace, rel), { recursive: true, force: true });
  }
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
  workspace: string | { identity: string },
  signatures: ReadonlyMap<string, string>,
  /** The machine's cache key file: signs the stamps. */
  keyFile: string,
  /** The stamps read before the check: when nothing changed, the file is only touched (its age orders eviction). */
  previous?: ReadonlyMap<string, string>,
): Promise<void> {
  const identity = typeof workspace === 'string' ? await worktreeIdentity(workspace) : workspace.identity;
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
  const listed = Object.fromEntries(signatures);
  // Signed: a stamp says which files need not be read again, so a forged one would let a changed file pass.
  await writeFile(file, JSON.stringify({ identity, signatures: listed, hmac: cacheHmac(stampText(key, identity, listed), keyFile) }));
  const names = await readdir(path.dirname(file));
  if (names.length <= STAMPS_KEPT) return;
  const aged = await Promise.all(
    names.map(async (name) => ({ name, at: (await stat(path.join(path.dirname(file), name)).catch(() => null))?.mtimeMs ?? 0 })),
  );
  aged.sort((a, b) => b.at - a.at);
  for (const { name } of aged.slice(STAMPS_KEPT)) await rm(path.join(path.dirname(file), name), { force: true });
}

const stampText = (key: string, identity: string, signatures: Record<string, unknown>) =>
  `elenchos-setup-cache-stamp-v1\n${key}\n${JSON.stringify([identity, Object.entries(signatures).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))])}`;

function sameSignatures(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [file, signature] of b) if (a.get(file) !== signature) return false;
  return true;
}

/** The signatures last recorded for `workspace` under `key`, signed with the key in `keyFile` (empty when none). */
export async function readStamps(cacheDir: string, key: string, workspace: string, keyFile: string): Promise<Map<string, string>> {
  try {
    const identity = await worktreeIdentity(workspace);
    const bytes = await readRegularFile(stampFile(cacheDir, key, identity), { maxBytes: MANIFEST_LIMIT });
    const value = JSON.parse(bytes.toString('utf8')) as {
      identity?: unknown;
      signatures?: Record<string, unknown>;
      hmac?: unknown;
    };
    if (value.identity !== identity || typeof value.signatures !== 'object' || value.signatures === null) return new Map();
    if (!cacheHmacValid(stampText(key, identity, value.signatures), value.hmac, keyFile)) return new Map();
    return new Map(Object.entries(value.signatures).filter((pair): pair is [string, string] => typeof pair[1] === 'string'));
  } catch {
    return new Map();
  }
}
