// The setup cache's key: what setup.command's output depends on (key files, the command, the platform).
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { sha256 } from '../../util/sha256.js';
import { readNoFollow } from '../../util/tree-manifest.js';

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

/** A key file as a setup would see it: its bytes, missing, or refused (a symlink, not a regular file). */
export type KeyFileRead = { kind: 'file'; data: Buffer } | { kind: 'missing' } | { kind: 'refused'; reason: string };

/**
 * The key of `spec` in `workspace`, from the key files as they are there now (so an agent's edit of
 * package-lock.json gives its next setup a new key). A missing key file is a value of its own; a key
 * file that is a symlink or not a regular file is refused: its content could change behind the name.
 */
export async function computeCacheKey(workspace: string, spec: SetupCacheSpec): Promise<CacheKeyResult> {
  return keyFrom(spec, (file) => readKeyFile(workspace, file));
}

/** Key file `file` of the tree at `root`, never through a symlink. */
export async function readKeyFile(root: string, file: string): Promise<KeyFileRead> {
  const abs = path.join(root, file);
  const stat = await lstat(abs).catch(() => null);
  if (!stat) return { kind: 'missing' };
  if (stat.isSymbolicLink()) return { kind: 'refused', reason: `key file ${file} is a symlink (never followed)` };
  if (!stat.isFile()) return { kind: 'refused', reason: `key file ${file} is not a regular file` };
  return { kind: 'file', data: await readNoFollow(abs) };
}

/** The key of `spec` with each key file read by `read` (a worktree's files, or a commit's: see gc). */
export async function keyFrom(spec: SetupCacheSpec, read: (file: string) => Promise<KeyFileRead>): Promise<CacheKeyResult> {
  const files: [string, string][] = [];
  for (const file of [...spec.key].sort()) {
    const found = await read(file);
    if (found.kind === 'refused') return { ok: false, reason: found.reason };
    files.push([file, found.kind === 'missing' ? 'missing' : sha256(found.data)]);
  }
  const paths = [...spec.paths].sort();
  return { ok: true, key: sha256(JSON.stringify({ v: 1, command: spec.command, platform: platformTag(), files, paths })) };
}
