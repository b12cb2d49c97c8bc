// Whether a repository-relative path would be reached through a symlinked folder (`data -> /elsewhere`):
// writing or deleting it there would act outside the tree.
import { lstat } from 'node:fs/promises';
import path from 'node:path';

/**
 * The first folder on the way to `rel` (inside `root`) that is a symbolic link, or null. `seen` caches
 * answers across calls (many paths share their folders).
 */
export async function symlinkOnTheWay(root: string, rel: string, seen: Map<string, boolean> = new Map()): Promise<string | null> {
  const parts = rel.replace(/^\.\//, '').replace(/\/+$/, '').split('/').slice(0, -1);
  for (let i = 1; i <= parts.length; i++) {
    const folder = parts.slice(0, i).join('/');
    let link = seen.get(folder);
    if (link === undefined) {
      link = (await lstat(path.join(root, folder)).catch(() => null))?.isSymbolicLink() ?? false;
      seen.set(folder, link);
    }
    if (link) return folder;
  }
  return null;
}
