// `setup.cache`: give a worktree what setup.command produced for the same key files, command and
// platform, without running it; or run it once per key and save the result (docs/performance.md).
import { lstat, mkdir } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { InterruptedError, describeError } from '../../errors.js';
import { trackedInCommit, trackedUnder } from '../../git/tracked-paths.js';
import { tryExclusiveLock, type ExclusiveLock } from '../../process/exclusive-lock.js';
import { compareTree } from '../../util/tree-manifest.js';
import { computeCacheKey, type SetupCacheSpec } from './setup-cache-key.js';
import {
  discardCacheEntry,
  markUsed,
  readCacheManifest,
  readStamps,
  removePaths,
  restoreCacheEntry,
  setAside,
  saveFromSnapshot,
  snapshotForSave,
  writeStamps,
} from './setup-cache-store.js';

export interface SetupCacheReport {
  /** hit: restored or kept paths verified; miss: setup ran; rejected: a bad entry or kept copy was thrown away, setup ran; off: this setup cannot be cached. */
  status: 'hit' | 'miss' | 'rejected' | 'off';
  key: string | null;
  message: string;
  /** What was thrown away or refused, and why (each one worth a warning). */
  warnings: string[];
}

export type CachedSetup =
  | { kind: 'hit'; report: SetupCacheReport }
  | {
      kind: 'run';
      report: SetupCacheReport;
      /**
       * After setup.command succeeded, before anything else runs in the worktree: records what it
       * produced and copies it in the background. From then on the save owns the key's lock.
       */
      save: (() => Promise<PendingSave>) | null;
      /** Releases the key's lock, unless a save took it over. */
      release: () => Promise<void>;
    };

export interface CachedSetupOptions {
  cacheDir: string;
  /** The machine's cache key file (util/secret-paths.ts: cacheKeyPath of the caller's environment): signs and checks entries. */
  keyFile: string;
  workspace: string;
  spec: SetupCacheSpec;
  signal: AbortSignal;
  /** How long to wait for another run doing the same key's setup before doing it too. */
  waitMs: number;
  /** The commit `workspace` was just checked out or reset to, its index untouched since: tracked paths are read from it. */
  commit?: string;
  /** Test seam: awaited after the snapshot, before the background copy reads any file. */
  beforeCopy?: (signal: AbortSignal) => Promise<void>;
  /** Test seam for saveFromSnapshot (a write racing the copy of one file). */
  afterRead?: (rel: string) => Promise<void>;
}

/**
 * A save going on while the agent (or the app, or the verifier) works: the copy of what setup left,
 * published only if every file copied still had its pre-agent signature. It owns the key's lock until
 * it is published or abandoned, so runs waiting for the key restore it as soon as it is there.
 */
export interface PendingSave {
  /** What the snapshot found (the copy goes on), or why nothing will be saved. */
  report: SetupCacheReport;
  /** Settles (never rejects) once the entry is published or the save abandoned; the lock is released by then. */
  done: Promise<SetupCacheReport>;
  /** Stops the copy (nothing is published) and waits for it to settle. */
  abandon: (reason: string) => Promise<SetupCacheReport>;
}

/** Files the background copy reads and writes at once: enough to keep a disk busy, few enough to leave the CPU to the agent. */
const BACKGROUND_COPIES = 4;

const POLL_MS = 100;
const short = (key: string) => key.slice(0, 12);

/**
 * Restores the cached setup for this worktree's key, or says to run setup.command (holding the key's
 * lock when it can, so concurrent runs sharing a key do the setup once, the others then restore it).
 */
export async function beginCachedSetup(options: CachedSetupOptions): Promise<CachedSetup> {
  const { cacheDir, workspace } = options;
  const spec = { ...options.spec, paths: [...options.spec.paths].sort() };
  const warnings: string[] = [];
  const off = (reason: string): CachedSetup => ({
    kind: 'run',
    report: { status: 'off', key: null, message: `running \`${spec.command}\` without the cache`, warnings: [reason] },
    save: null,
    release: async () => undefined,
  });
  const refused = await refusedCachePath(workspace, spec.paths, options.commit);
  if (refused) return off(`setup cache off: ${refused}`);
  const computed = await computeCacheKey(workspace, spec);
  if (!computed.ok) {
    await removePaths(workspace, spec.paths); // kept copies cannot be checked against any key
    return off(`setup cache off: ${computed.reason}`);
  }
  const { key } = computed;
  await mkdir(cacheDir, { recursive: true });
  if (await keptCopyHolds(options, key, spec.paths, warnings)) {
    return { kind: 'hit', report: { status: 'hit', key, message: `kept ${spec.paths.join(', ')} verified (key ${short(key)})`, warnings } };
  }
  const waited = await restoreOrLock(options, key, spec.paths, warnings);
  if ('restored' in waited) {
    return { kind: 'hit', report: { status: 'hit', key, message: `${waited.restored} (key ${short(key)})`, warnings } };
  }
  const status = warnings.length > 0 ? 'rejected' : 'miss';
  const report: SetupCacheReport = { status, key, message: `no entry for key ${short(key)}: running \`${spec.command}\``, warnings };
  const held = waited.lock;
  let handedOver = false;
  return {
    kind: 'run',
    report,
    save: () => {
      handedOver = true;
      return startSave(options, { key, paths: spec.paths, report, held });
    },
    release: async () => {
      if (!handedOver) await held?.release();
    },
  };
}

/** Why these cache paths cannot be cached (under .git or .elenchos, nested, under a symlink, tracked by git), or null. */
async function refusedCachePath(workspace: string, paths: readonly string[], commit: string | undefined): Promise<string | null> {
  const unsafe = paths.find(
    (rel, i) => /^(\.git|\.elenchos)(\/|$)/.test(rel) || paths.some((other, j) => j !== i && rel.startsWith(`${other}/`)),
  );
  if (unsafe) return `${unsafe} cannot be a cache path (.git, .elenchos, or inside another cache path)`;
  const linked = await symlinkedParent(workspace, paths);
  if (linked) return `${linked} is a symlink (a cache path under it would be read and written elsewhere)`;
  const tracked = commit ? await trackedInCommit(workspace, commit, paths) : await trackedUnder(workspace, paths);
  if (tracked.length > 0) return `${tracked[0]} is tracked by git (setup.cache.paths must be ignored)`;
  return null;
}

/**
 * Whether the cache paths a warm worktree kept are exactly the entry for `key`; when they are not, they
 * are set aside (with a warning when they differ from an entry that exists).
 */
async function keptCopyHolds(
  { cacheDir, workspace, keyFile }: CachedSetupOptions,
  key: string,
  paths: readonly string[],
  warnings: string[],
): Promise<boolean> {
  if (!(await anyExists(workspace, paths))) return false;
  const kept = await verifyCachedPaths(cacheDir, workspace, key, paths, keyFile);
  if (kept.ok) {
    await markUsed(cacheDir, key);
    return true;
  }
  // No entry for this key (the key files changed since): an ordinary miss. A kept copy that differs
  // from its entry is worth a warning: something changed it after it was proven equal.
  if (!kept.noEntry) warnings.push(`kept ${paths.join(', ')} thrown away: ${kept.reason}`);
  // Moved out of the worktree at once and deleted while setup runs: a miss should not wait for it.
  await setAside(cacheDir, workspace, paths);
  return false;
}

/**
 * Restores the key's entry as soon as there is one; otherwise takes the key's lock (this run does the
 * setup), or gives up waiting for a stuck owner after `waitMs` (then without the lock: the first save wins).
 */
async function restoreOrLock(
  options: CachedSetupOptions,
  key: string,
  paths: readonly string[],
  warnings: string[],
): Promise<{ restored: string } | { lock: ExclusiveLock | null }> {
  const { cacheDir } = options;
  const deadline = Date.now() + options.waitMs;
  let lock: ExclusiveLock | null = null;
  for (;;) {
    const restored = await tryRestore(options, key, paths, warnings);
    if (restored) {
      await lock?.release();
      return { restored };
    }
    if (lock) break; // ours, and still no entry: this run does the setup
    lock = await tryExclusiveLock(path.join(cacheDir, `${key}.lock`));
    if (lock) continue; // look once more: the previous owner may have saved it just before releasing
    if (Date.now() > deadline) break; // the owner is stuck: do the setup here too (the first save wins)
    await sleep(POLL_MS, undefined, { signal: options.signal }).catch(() => {
      throw new InterruptedError('interrupted while waiting for another run doing the same setup');
    });
  }
  return { lock };
}

/**
 * Records what setup produced (structure and stat signatures, before the agent starts: the cheap part)
 * and copies it in the background; the save owns the key's lock (`held`) until it settles.
 */
async function startSave(
  options: CachedSetupOptions,
  run: { key: string; paths: readonly string[]; report: SetupCacheReport; held: ExclusiveLock | null },
): Promise<PendingSave> {
  const { cacheDir, workspace } = options;
  const { key, report, held } = run;
  const notSaved = (reason: string): SetupCacheReport => ({
    ...report,
    message: `not saved: ${reason}`,
    warnings: [...report.warnings, `setup cache not saved: ${reason}`],
  });
  const snap = await snapshotForSave(workspace, run.paths).catch((error: unknown) => ({
    ok: false as const,
    reason: describeError(error),
  }));
  if (!snap.ok) {
    await held?.release();
    const final = notSaved(snap.reason);
    return { report: final, done: Promise.resolve(final), abandon: async () => final };
  }
  const { snapshot } = snap;
  const files = snapshot.entries.filter((entry) => entry.type === 'file').length;
  const controller = new AbortController();
  const copy = async (): Promise<SetupCacheReport> => {
    await options.beforeCopy?.(controller.signal);
    // A save that fails (permissions, a full disk, a file changed) costs the next run a setup, never this run.
    const saved = await saveFromSnapshot(cacheDir, key, workspace, snapshot, {
      signal: controller.signal,
      afterRead: options.afterRead,
      concurrency: BACKGROUND_COPIES,
      keyFile: options.keyFile,
    }).catch((error: unknown) => ({ ok: false as const, reason: describeError(error) }));
    if (!saved.ok) return notSaved(saved.reason);
    await writeStamps(cacheDir, key, { identity: snapshot.identity }, snapshot.signatures, options.keyFile).catch(() => undefined);
    await markUsed(cacheDir, key);
    return { ...report, message: `saved ${saved.files} files (${saved.bytes} bytes) under key ${short(key)}` };
  };
  const done = copy()
    .catch((error: unknown) => notSaved(describeError(error)))
    .finally(() => held?.release());
  return {
    report: { ...report, message: `copying ${files} files under key ${short(key)} while the run goes on` },
    done,
    abandon: async (reason: string) => {
      controller.abort(reason);
      return done;
    },
  };
}

/** Restores the entry for `key` into `workspace`; a bad entry is discarded with a warning. Returns what was done, or null. */
async function tryRestore(
  { cacheDir, workspace, keyFile }: CachedSetupOptions,
  key: string,
  paths: readonly string[],
  warnings: string[],
): Promise<string | null> {
  const read = await readCacheManifest(cacheDir, key, keyFile);
  if (!read.ok) {
    if (read.exists) {
      warnings.push(`cache entry ${short(key)} discarded: ${read.reason}`);
      await discardCacheEntry(cacheDir, key);
    }
    return null;
  }
  if (read.manifest.paths.join('\n') !== paths.join('\n')) return null;
  const restored = await restoreCacheEntry(cacheDir, read.manifest, workspace);
  if (restored.ok) {
    await writeStamps(cacheDir, key, workspace, restored.signatures, keyFile);
    await markUsed(cacheDir, key);
    return `restored ${restored.files} files (${restored.bytes} bytes)`;
  }
  warnings.push(`cache entry ${short(key)} discarded: ${restored.reason}`);
  await removePaths(workspace, paths);
  await discardCacheEntry(cacheDir, key);
  return null;
}

/**
 * Whether the cache paths already in `workspace` (kept by a warm worktree, so seen by the previous
 * agent and app) are exactly the entry for `key`: every file's bytes, mode, every symlink, nothing
 * more. Anything else must be removed before the worktree is used. Files whose stat signature
 * (inode, size, mode, ctime, mtime) is the one recorded when they were last proven equal are not
 * re-read: no process can give a changed file its old ctime back.
 */
export async function verifyCachedPaths(
  cacheDir: string,
  workspace: string,
  key: string,
  paths: readonly string[],
  keyFile: string,
): Promise<{ ok: true } | { ok: false; reason: string; noEntry?: true }> {
  const read = await readCacheManifest(cacheDir, key, keyFile);
  if (!read.ok)
    return read.exists ? { ok: false, reason: read.reason } : { ok: false, reason: `no cache entry for key ${short(key)}`, noEntry: true };
  const signatures = new Map<string, string>();
  const trusted = await readStamps(cacheDir, key, workspace, keyFile);
  const difference = await compareTree(workspace, paths, read.manifest.entries, { trusted, signatures });
  if (difference) return { ok: false, reason: difference };
  await writeStamps(cacheDir, key, workspace, signatures, keyFile, trusted);
  return { ok: true };
}

async function anyExists(workspace: string, paths: readonly string[]): Promise<boolean> {
  for (const rel of paths) if (await lstat(path.join(workspace, rel)).catch(() => null)) return true;
  return false;
}

// The first folder above a cache path that is a symlink (never followed: a committed link could point anywhere).
async function symlinkedParent(workspace: string, paths: readonly string[]): Promise<string | null> {
  for (const rel of paths) {
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const prefix = parts.slice(0, i).join('/');
      if ((await lstat(path.join(workspace, prefix)).catch(() => null))?.isSymbolicLink()) return prefix;
    }
  }
  return null;
}
