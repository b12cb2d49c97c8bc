// What a warm worktree may keep under its setup.cache paths when it goes back to the pool: only what the
// setup cache's signed entry vouches for. The reset leaves those paths alone (their content is the
// cache's to prove), so without this an agent's file under node_modules/ (a credential, say) would stay
// in `.elenchos/pool/<n>/` until the next take threw it away.
import { lstat, rm } from 'node:fs/promises';
import path from 'node:path';
import { describeError } from '../../errors.js';
import { describeDifference, walkTree, type ManifestEntry } from '../../util/tree-manifest.js';
import { computeCacheKey, type SetupCacheSpec } from './setup-cache-key.js';
import { readCacheManifest, readStamps, removePaths, writeStamps } from './setup-cache-store.js';

export type PruneResult =
  /** Every entry left is the cache entry's, byte for byte; `dropped` lists what was not (topmost paths). */
  | { kept: true; dropped: string[] }
  /** Nothing could vouch for the kept paths, or something the entry has was changed: all of them went. */
  | { kept: false; reason: string };

/**
 * In a worktree just reset to the commit its setup ran on (so its key files are that commit's): removes
 * every entry under `spec.paths` the entry for that key does not list, and all of `spec.paths` when one
 * it lists differs from it, or when no entry vouches for them (`cache` undefined: setup.cache unused).
 * Files whose stat signature is the one stamped when they were last proven equal are not re-read (no
 * process can give a changed file its old ctime back); what the entry does not list is never read.
 * `cache.keyFile`: the machine's cache key the entry is signed with.
 */
export async function pruneKeptPaths(
  workspace: string,
  spec: SetupCacheSpec,
  cache: { dir: string; keyFile: string } | undefined,
): Promise<PruneResult> {
  const dropAll = async (reason: string): Promise<PruneResult> => {
    await removePaths(workspace, spec.paths);
    return { kept: false, reason };
  };
  const present = await Promise.all(spec.paths.map((rel) => lstat(path.join(workspace, rel)).then(Boolean, () => false)));
  if (!present.includes(true)) return { kept: true, dropped: [] };
  if (!cache) return dropAll('no setup cache vouches for them');
  const { dir: cacheDir, keyFile } = cache;
  try {
    const computed = await computeCacheKey(workspace, spec);
    if (!computed.ok) return await dropAll(computed.reason);
    const read = await readCacheManifest(cacheDir, computed.key, keyFile);
    if (!read.ok) return await dropAll(read.exists ? read.reason : 'no setup cache entry vouches for them');
    const want = new Map(read.manifest.entries.map((entry) => [entry.path, entry]));
    const trusted = await readStamps(cacheDir, computed.key, workspace, keyFile);
    const signatures = new Map<string, string>();
    // Not in the entry: going anyway, so never read (a stand-in hash); in it and stamped: known.
    const known = (entry: ManifestEntry, signature: string) => {
      const other = want.get(entry.path);
      if (!other) return { size: -1, sha256: '' };
      return trusted.get(entry.path) === signature ? { size: other.size ?? -1, sha256: other.sha256 ?? '' } : null;
    };
    const walked = await walkTree(workspace, spec.paths, { known, signatures });
    if (!walked.ok) return await dropAll(walked.reason);
    const dropped: string[] = [];
    for (const entry of walked.entries) {
      if (dropped.some((top) => entry.path.startsWith(`${top}/`))) continue;
      const expected = want.get(entry.path);
      if (!expected) {
        dropped.push(entry.path);
        continue;
      }
      const difference = describeDifference(entry, expected);
      if (difference) return await dropAll(`${entry.path}: ${difference}`);
    }
    for (const rel of dropped) await rm(path.join(workspace, rel), { recursive: true, force: true });
    const left = new Map([...signatures].filter(([rel]) => !dropped.some((top) => rel === top || rel.startsWith(`${top}/`))));
    await writeStamps(cacheDir, computed.key, workspace, left, keyFile, trusted);
    return { kept: true, dropped };
  } catch (error) {
    return dropAll(describeError(error));
  }
}
