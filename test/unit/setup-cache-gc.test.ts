// gc's trimming of the setup cache: old entries and the least recently used beyond the size go, the
// current key and an entry in use never do (but `--cache` takes the current one too); hits record use.
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { trimSetupCache } from '../../src/core/workspace/setup-cache-gc.js';
import { computeCacheKey } from '../../src/core/workspace/setup-cache-key.js';
import { saveCacheEntry } from '../helpers/setup-cache.js';
import { beginCachedSetup } from '../../src/core/workspace/setup-cache.js';
import { tryExclusiveLock } from '../../src/process/exclusive-lock.js';
import { gitSync, tempDir, tempRepo, writeFiles, tempCacheKeyFile } from '../helpers/temp.js';

const KEY_FILE = tempCacheKeyFile();

const spec = { command: 'npm ci', key: ['package-lock.json'], paths: ['node_modules'] };
const DAY = 24 * 60 * 60 * 1000;
const configWith = (limits: { maxAgeDays?: number; maxBytes?: number } = {}, copy: string[] = []) => ({
  setup: { command: spec.command, copy, timeoutSeconds: 600, cache: { key: spec.key, paths: spec.paths } },
  setupCache: { maxAgeDays: 14, maxBytes: 5 * 1024 ** 3, ...limits },
});

/** An entry for the lockfile `lock` whose last use was `daysAgo` days ago; `bytes` of payload. Returns its key. */
async function entry(cacheDir: string, lock: string, daysAgo: number, bytes = 1000): Promise<string> {
  const tree = tempRepo({ 'package-lock.json': `${lock}\n`, '.gitignore': 'node_modules\n' });
  writeFiles(tree, { 'node_modules/x/index.js': 'x'.repeat(bytes) });
  const key = await computeCacheKey(tree, spec);
  if (!key.ok) throw new Error(key.reason);
  const saved = await saveCacheEntry(cacheDir, key.key, tree, spec.paths, KEY_FILE);
  if (!saved.ok) throw new Error(saved.reason);
  const when = new Date(Date.now() - daysAgo * DAY);
  const used = path.join(cacheDir, key.key, 'last-used');
  writeFileSync(used, when.toISOString());
  utimesSync(used, when, when);
  return key.key;
}

/** The checkout whose HEAD's lockfile is `lock` (its key is the current one); a lockfile ends with a newline, as git must keep it. */
const checkout = (lock: string) => tempRepo({ 'package-lock.json': `${lock}\n`, '.gitignore': 'node_modules\n' });
const entries = (cacheDir: string) =>
  readdirSync(cacheDir)
    .filter((name) => /^[0-9a-f]{64}$/.test(name))
    .sort();

describe('trimSetupCache', () => {
  it('removes entries unused for maxAgeDays except the current key, however old', async () => {
    const root = checkout('L-current');
    const cacheDir = path.join(tempDir(), 'cache');
    const current = await entry(cacheDir, 'L-current', 30);
    const old = await entry(cacheDir, 'L-old', 15);
    const recent = await entry(cacheDir, 'L-recent', 13);
    const trimmed = await trimSetupCache({ root, cacheDir, config: configWith() });
    expect(trimmed).toEqual([{ key: old, bytes: expect.any(Number), reason: 'not used for 14 days' }]);
    expect(entries(cacheDir)).toEqual([current, recent].sort());
  });

  it('the current key is what a worktree of HEAD would have (not an uncommitted lockfile), or of the checkout for setup.copy files', async () => {
    const root = checkout('L-committed');
    const cacheDir = path.join(tempDir(), 'cache');
    const committed = await entry(cacheDir, 'L-committed', 30);
    const dirty = await entry(cacheDir, 'L-dirty', 30);
    writeFileSync(path.join(root, 'package-lock.json'), 'L-dirty\n');
    expect((await trimSetupCache({ root, cacheDir, config: configWith() })).map((t) => t.key)).toEqual([dirty]);
    expect(entries(cacheDir)).toEqual([committed]);
    // A key file in setup.copy comes from the checkout itself: now the dirty one is current.
    const again = await entry(cacheDir, 'L-dirty', 30);
    expect((await trimSetupCache({ root, cacheDir, config: configWith({}, ['package-lock.json']) })).map((t) => t.key)).toEqual([
      committed,
    ]);
    expect(entries(cacheDir)).toEqual([again]);
  });

  it('over maxBytes, removes the least recently used first, never the current key', async () => {
    const root = checkout('L-current');
    const cacheDir = path.join(tempDir(), 'cache');
    const current = await entry(cacheDir, 'L-current', 9, 5000);
    const oldest = await entry(cacheDir, 'L-a', 3, 5000);
    const middle = await entry(cacheDir, 'L-b', 2, 5000);
    const newest = await entry(cacheDir, 'L-c', 1, 5000);
    // Room for about three entries: the oldest non-current one goes, the current one stays although older.
    const trimmed = await trimSetupCache({ root, cacheDir, config: configWith({ maxBytes: 17_000 }) });
    expect(trimmed.map((t) => t.key)).toEqual([oldest]);
    expect(trimmed[0]?.reason).toMatch(/over setupCache\.maxBytes/);
    expect(entries(cacheDir)).toEqual([current, middle, newest].sort());
    // No room at all: every non-current one goes, still not the current key.
    await trimSetupCache({ root, cacheDir, config: configWith({ maxBytes: 0 }) });
    expect(entries(cacheDir)).toEqual([current]);
  });

  it('--cache removes every idle entry, the current one too; an entry in use (its lock held) never, and --dry-run nothing', async () => {
    const root = checkout('L-current');
    const cacheDir = path.join(tempDir(), 'cache');
    const current = await entry(cacheDir, 'L-current', 0);
    const busy = await entry(cacheDir, 'L-busy', 400);
    const lock = await tryExclusiveLock(path.join(cacheDir, `${busy}.lock`)); // a run saving (or gc'ing) it
    expect(lock).not.toBeNull();
    const dry = await trimSetupCache({ root, cacheDir, config: configWith(), all: true, dryRun: true });
    expect(dry.map((t) => t.key)).toEqual([current]);
    expect(entries(cacheDir)).toEqual([current, busy].sort());
    expect((await trimSetupCache({ root, cacheDir, config: configWith() })).map((t) => t.key)).toEqual([]); // old, but in use
    expect((await trimSetupCache({ root, cacheDir, config: configWith(), all: true })).map((t) => t.key)).toEqual([current]);
    expect(entries(cacheDir)).toEqual([busy]);
    await lock?.release();
    expect((await trimSetupCache({ root, cacheDir, config: configWith(), all: true })).map((t) => t.key)).toEqual([busy]);
    expect(readdirSync(cacheDir)).toEqual([]); // no lock, no leftovers
  });

  it('a hit records its use, so an entry restored or kept recently is not old', async () => {
    const root = checkout('L-other');
    const cacheDir = path.join(tempDir(), 'cache');
    const key = await entry(cacheDir, 'L1', 20);
    const tree = tempRepo({ 'package-lock.json': 'L1\n', '.gitignore': 'node_modules\n' });
    const lookup = () =>
      beginCachedSetup({ keyFile: KEY_FILE, cacheDir, workspace: tree, spec, signal: new AbortController().signal, waitMs: 1000 });
    const used = () => statSync(path.join(cacheDir, key, 'last-used')).mtimeMs;
    expect((await lookup()).report.message).toMatch(/^restored/);
    expect(Date.now() - used()).toBeLessThan(DAY);
    const when = new Date(Date.now() - 20 * DAY);
    utimesSync(path.join(cacheDir, key, 'last-used'), when, when);
    expect((await lookup()).report.message).toMatch(/^kept node_modules verified/);
    expect(Date.now() - used()).toBeLessThan(DAY);
    expect(await trimSetupCache({ root, cacheDir, config: configWith() })).toEqual([]);
    expect(existsSync(path.join(cacheDir, key))).toBe(true);
  });

  it('without a readable config: default limits, no current key', async () => {
    const root = checkout('L-current');
    gitSync(root, 'status');
    const cacheDir = path.join(tempDir(), 'cache');
    const current = await entry(cacheDir, 'L-current', 20);
    const recent = await entry(cacheDir, 'L-recent', 1);
    expect((await trimSetupCache({ root, cacheDir, config: null })).map((t) => t.key)).toEqual([current]);
    expect(entries(cacheDir)).toEqual([recent]);
  });
});
