// `gc`'s part of the setup cache: entries no run will ask for again are removed once unused for
// setupCache.maxAgeDays, the least recently used go while the cache is over setupCache.maxBytes, and
// `gc --cache` removes every idle one. An entry whose key lock a live process holds is never touched.
import { lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config/config-schema.js';
import { gitBytes, git } from '../../git/git.js';
import { tryExclusiveLock } from '../../process/exclusive-lock.js';
import { keyFrom, readKeyFile, type KeyFileRead } from './setup-cache-key.js';
import { discardCacheEntry, pruneLeftovers } from './setup-cache-store.js';
import { setupCacheEntryFiles } from '../../evidence/layout.js';

export interface TrimmedEntry {
  key: string;
  bytes: number;
  reason: string;
}

export interface TrimOptions {
  root: string;
  cacheDir: string;
  /** Null when the configuration cannot be read: nothing is "current", the default limits apply. */
  config: Pick<Config, 'setup' | 'setupCache'> | null;
  /** `gc --cache`: every idle entry, the current key's too. */
  all?: boolean;
  dryRun?: boolean;
  now?: number;
}

interface EntryInfo {
  key: string;
  bytes: number;
  lastUsed: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_LIMITS = { maxAgeDays: 14, maxBytes: 5 * 1024 ** 3 };

/** Removes the entries the policy says go (see the file's header); returns what was (or, dry, would be) removed. */
export async function trimSetupCache(options: TrimOptions): Promise<TrimmedEntry[]> {
  const { cacheDir } = options;
  const limits = options.config?.setupCache ?? DEFAULT_LIMITS;
  const now = options.now ?? Date.now();
  if (!options.dryRun) await pruneLeftovers(cacheDir);
  const entries = await listEntries(cacheDir);
  const current = options.all ? null : await currentKey(options);
  const doomed: TrimmedEntry[] = [];
  let total = entries.reduce((sum, entry) => sum + entry.bytes, 0);
  // Oldest first: the least recently used go first when the cache is over its size.
  for (const entry of [...entries].sort((a, b) => a.lastUsed - b.lastUsed)) {
    let reason: string | null = null;
    if (options.all) reason = 'gc --cache';
    else if (entry.key === current)
      continue; // the next run's key: removing it only costs that run a setup
    else if (now - entry.lastUsed > limits.maxAgeDays * DAY_MS) reason = `not used for ${limits.maxAgeDays} days`;
    else if (total > limits.maxBytes) reason = `the cache is over setupCache.maxBytes (${limits.maxBytes} bytes)`;
    if (!reason) continue;
    if (await removeIdle(cacheDir, entry.key, options.dryRun)) {
      doomed.push({ key: entry.key, bytes: entry.bytes, reason });
      total -= entry.bytes;
    }
  }
  return doomed;
}

// Under the key's lock, so never while a run saves it (or waits on it); false when a live process holds it.
async function removeIdle(cacheDir: string, key: string, dryRun = false): Promise<boolean> {
  const lock = await tryExclusiveLock(path.join(cacheDir, `${key}.lock`));
  if (!lock) return false;
  try {
    if (!dryRun) await discardCacheEntry(cacheDir, key);
    return true;
  } finally {
    await lock.release();
  }
}

async function listEntries(cacheDir: string): Promise<EntryInfo[]> {
  const names = await readdir(cacheDir).catch(() => [] as string[]);
  const entries: EntryInfo[] = [];
  for (const key of names.filter((name) => /^[0-9a-f]{64}$/.test(name))) {
    const dir = path.join(cacheDir, key);
    const info = await lstat(dir).catch(() => null);
    if (!info?.isDirectory()) continue;
    // Recorded on every hit and on the save; an entry without it counts from its manifest.
    const used =
      (await stat(setupCacheEntryFiles(dir).lastUsed).catch(() => null)) ??
      (await stat(setupCacheEntryFiles(dir).manifest).catch(() => null));
    entries.push({ key, bytes: await treeBytes(dir), lastUsed: (used ?? info).mtimeMs });
  }
  return entries;
}

async function treeBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const abs = path.join(dir, entry.name);
    if (entry.isDirectory()) bytes += await treeBytes(abs);
    else bytes += (await lstat(abs).catch(() => null))?.size ?? 0;
  }
  return bytes;
}

/**
 * The key a run started now would use: the key files as a worktree of HEAD has them (those in
 * setup.copy come from the checkout). Null when there is no cache configured or the key is refused.
 */
async function currentKey(options: TrimOptions): Promise<string | null> {
  const setup = options.config?.setup;
  if (!setup?.command || !setup.cache) return null;
  const spec = { command: setup.command, key: setup.cache.key, paths: setup.cache.paths };
  const copied = new Set(setup.copy);
  const read = async (file: string): Promise<KeyFileRead> => {
    if (copied.has(file)) return readKeyFile(options.root, file);
    const listed = await git(['ls-tree', '-z', 'HEAD', '--', file], { cwd: options.root }).catch(() => '');
    const match = /^(\d+) (\w+) ([0-9a-f]+)\t/.exec(listed);
    if (!match) return { kind: 'missing' };
    if (match[1] !== '100644' && match[1] !== '100755') return { kind: 'refused', reason: `key file ${file} is not a regular file` };
    return { kind: 'file', data: await gitBytes(['cat-file', 'blob', match[3] as string], { cwd: options.root }) };
  };
  const key = await keyFrom(spec, read).catch(() => null);
  return key?.ok ? key.key : null;
}
