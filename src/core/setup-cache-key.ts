// The setup cache's key: what setup.command's output depends on (key files, the command, the platform).
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { sha256 } from '../util/sha256.js';
import { readNoFollow } from '../util/tree-manifest.js';

export interface SetupCacheSpec {
  command: string;
  key: readonly string[];
  paths: readonly string[];
}

export type CacheKeyResult = { ok: true; key: string } | { ok: false; reason: string };

/** The platform part of the key: node_modules built on one OS, CPU or Node major is not another's. */
export function platformTag(): string {
  return `${process.platform}-${process.arch}-node${process.versions.node.split('.')[0]}`;
}

/**
 * The key of `spec` in `workspace`, from the key files as they are there now (so an agent's edit of
 * package-lock.json gives its next setup a new key). A missing key file is a value of its own; a key
 * file that is a symlink or not a regular file is refused: its content could change behind the name.
 */
export async function computeCacheKey(workspace: string, spec: SetupCacheSpec): Promise<CacheKeyResult> {
  const files: [string, string][] = [];
  for (const file of [...spec.key].sort()) {
    const abs = path.join(workspace, file);
    const stat = await lstat(abs).catch(() => null);
    if (!stat) {
      files.push([file, 'missing']);
      continue;
    }
    if (stat.isSymbolicLink()) return { ok: false, reason: `key file ${file} is a symlink (never followed)` };
    if (!stat.isFile()) return { ok: false, reason: `key file ${file} is not a regular file` };
    files.push([file, sha256(await readNoFollow(abs))]);
  }
  const paths = [...spec.paths].sort();
  return { ok: true, key: sha256(JSON.stringify({ v: 1, command: spec.command, platform: platformTag(), files, paths })) };
}
