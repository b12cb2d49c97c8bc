// Before a stored change is written into a user's checkout: every path it writes must be reachable and
// writable there. The checkout holds what the run never saw (ignored files, a symlinked folder, a folder
// the user cannot write), so a change that applied cleanly in its worktree can still fail half-way here.
import { constants } from 'node:fs';
import { access, lstat } from 'node:fs/promises';
import path from 'node:path';
import { git, splitNul } from './git.js';

export interface BlockedPath {
  /** The stored path that cannot be written. */
  name: string;
  /** The folder in the way, relative to the checkout ('' for the checkout itself). */
  folder: string;
  /** A symbolic link, a file where a folder is needed, or a folder that cannot be written. */
  kind: 'symlink' | 'file' | 'unwritable';
  /** The error code of the refused write check (`EACCES`, `EROFS`), for `unwritable`. */
  code?: string;
}

/** Every path a stored patch writes, creates or deletes (`git apply --numstat`, which writes nothing). */
export async function patchPaths(diffPath: string, cwd: string): Promise<string[]> {
  const out = await git(['apply', '--numstat', '-z', diffPath], { cwd });
  return splitNul(out).map((line) => line.split('\t').slice(2).join('\t'));
}

/**
 * The first of `names` (relative to `target`) that could not be written: a folder on its way is a
 * symbolic link or not a folder, or the deepest folder that exists is not writable (git and tar create
 * the rest). `seen` caches per folder, since many paths share them.
 */
export async function firstBlockedPath(target: string, names: readonly string[]): Promise<BlockedPath | null> {
  type Found = Omit<BlockedPath, 'name'>;
  const kinds = new Map<string, Found | 'missing' | 'folder'>();
  const writes = new Map<string, Found | null>();
  const probe = async (folder: string): Promise<Found | 'missing' | 'folder'> => {
    let found = kinds.get(folder);
    if (found === undefined) {
      const stat = await lstat(path.join(target, folder)).catch(() => null);
      if (!stat) found = 'missing';
      else if (stat.isSymbolicLink()) found = { folder, kind: 'symlink' };
      else found = stat.isDirectory() ? 'folder' : { folder, kind: 'file' };
      kinds.set(folder, found);
    }
    return found;
  };
  const writable = async (folder: string): Promise<Found | null> => {
    if (!writes.has(folder)) {
      const code = await access(path.join(target, folder), constants.W_OK | constants.X_OK).then(
        () => null,
        (error: NodeJS.ErrnoException) => error.code ?? 'EACCES',
      );
      writes.set(folder, code ? { folder, kind: 'unwritable', code } : null);
    }
    return writes.get(folder) ?? null;
  };
  for (const raw of names) {
    const name = raw.replace(/^\.\//, '').replace(/\/+$/, '');
    const parts = name.split('/').slice(0, -1);
    let deepest = '';
    let blocked: Found | null = null;
    for (let i = 1; i <= parts.length && !blocked; i++) {
      const folder = parts.slice(0, i).join('/');
      const found = await probe(folder);
      if (found === 'missing') break;
      if (found === 'folder') deepest = folder;
      else blocked = found;
    }
    blocked ??= await writable(deepest);
    if (blocked) return { name, ...blocked };
  }
  return null;
}
