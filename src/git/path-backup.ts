// A copy of what a set of paths in a checkout hold, taken before a change is written there, so that a
// change failing half-way (after `git apply` wrote, while tar extracts) leaves the checkout as it was.
import type { Stats } from 'node:fs';
import { chmod, copyFile, lstat, mkdtemp, readFile, readlink, rm, symlink, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** One path as it was: absent, a file (copied aside), a symbolic link, or a folder (its mode only). */
type Before =
  | { rel: string; kind: 'absent' }
  | { rel: string; kind: 'file'; copy: string; mode: number; atime: Date; mtime: Date }
  | { rel: string; kind: 'symlink'; to: string }
  | { rel: string; kind: 'folder'; mode: number };

export interface PathBackup {
  /**
   * Puts every path back as it was and removes the folders the change created; returns the paths it could
   * not put back (their copies are then kept, in `copies`), none when the checkout is as it was.
   */
  restore(): Promise<string[]>;
  /** Where the copies are. */
  copies: string;
  /** Drops the copies (after the change was written in full). */
  discard(): Promise<void>;
}

/**
 * Copies aside what each of `rels` holds in `root` (and notes which of their folders do not exist yet).
 * Cost follows the change: only the paths it writes are read.
 */
export async function backUpPaths(root: string, rels: readonly string[]): Promise<PathBackup> {
  const store = await mkdtemp(path.join(tmpdir(), 'elenchos-apply-'));
  const befores: Before[] = [];
  const createdFolders = new Set<string>();
  const names = [...new Set(rels.map((r) => r.replace(/^\.\//, '').replace(/\/+$/, '')))];
  try {
    for (const rel of names) {
      const parts = rel.split('/');
      for (let i = 1; i < parts.length; i++) {
        const folder = parts.slice(0, i).join('/');
        if (!createdFolders.has(folder) && !(await exists(path.join(root, folder)))) createdFolders.add(folder);
      }
      const full = path.join(root, rel);
      const stat = await lstat(full).catch(() => null);
      if (!stat) befores.push({ rel, kind: 'absent' });
      else if (stat.isSymbolicLink()) befores.push({ rel, kind: 'symlink', to: await readlink(full) });
      else if (stat.isDirectory()) befores.push({ rel, kind: 'folder', mode: stat.mode & 0o7777 });
      else {
        const copy = path.join(store, String(befores.length));
        await copyFile(full, copy);
        befores.push({ rel, kind: 'file', copy, mode: stat.mode & 0o7777, atime: stat.atime, mtime: stat.mtime });
      }
    }
  } catch (error) {
    await rm(store, { recursive: true, force: true });
    throw error;
  }
  return {
    copies: store,
    async restore() {
      const failed: string[] = [];
      // Each path on its own: one that cannot be put back (a read-only mount) must not keep the others as they are.
      for (const before of [...befores].reverse()) await putBack(root, before).catch(() => failed.push(before.rel));
      // Deepest first: a created folder goes with everything the change put in it.
      for (const folder of [...createdFolders].sort((a, b) => b.length - a.length))
        await rm(path.join(root, folder), { recursive: true, force: true }).catch(() => failed.push(`${folder}/`));
      if (failed.length === 0) await rm(store, { recursive: true, force: true });
      return failed;
    },
    async discard() {
      await rm(store, { recursive: true, force: true });
    },
  };
}

async function putBack(root: string, before: Before): Promise<void> {
  const full = path.join(root, before.rel);
  const now = await lstat(full).catch(() => null);
  if (before.kind === 'folder') {
    if (now?.isDirectory() && (now.mode & 0o7777) !== before.mode) await chmod(full, before.mode);
    return;
  }
  if (await unchanged(full, now, before)) return; // the change never got to it: leave it be
  await rm(full, { recursive: true, force: true });
  if (before.kind === 'symlink') await symlink(before.to, full);
  if (before.kind === 'file') {
    await copyFile(before.copy, full);
    await chmod(full, before.mode);
    await utimes(full, before.atime, before.mtime);
  }
}

/** Whether `full` (lstat `now`) still is what `before` recorded. */
async function unchanged(full: string, now: Stats | null, before: Before): Promise<boolean> {
  if (before.kind === 'absent') return now === null;
  if (before.kind === 'symlink') return now?.isSymbolicLink() === true && (await readlink(full)) === before.to;
  if (before.kind !== 'file' || !now?.isFile() || (now.mode & 0o7777) !== before.mode) return false;
  const [a, b] = await Promise.all([readFile(full), readFile(before.copy)]);
  return a.equals(b);
}

async function exists(p: string): Promise<boolean> {
  return (await lstat(p).catch(() => null)) !== null;
}
