// What in a stored change would be a git repository in the user's checkout: its config (core.fsmonitor,
// a hook) runs the agent's commands at the user's next git command there. Git finds a repository by a
// `.git` folder or file, spelled as the user's filesystem reads it (`.GIT` is `.git` on macOS and Windows,
// `GIT~1` is its short name on NTFS, `.git.` too), or by a folder laid out as a bare repository (`HEAD`,
// `objects/`, `refs/`), which git uses when run inside it.
import { readdirSync } from 'node:fs';
import path from 'node:path';

// Code points HFS+ ignores in names (git's is_hfs_dotgit): `.g\u200cit` is `.git` there.
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/** Whether one path component names a git folder or file on some filesystem a checkout may live on. */
export function isGitName(component: string): boolean {
  const folded = component
    .replace(HFS_IGNORED, '')
    .toLowerCase()
    .replace(/[. ]+$/, '');
  return folded === '.git' || folded === 'git~1';
}

/** Whether a repository-relative path is, or lies in, a `.git` folder or file (any spelling above). */
export function hasGitComponent(p: string): boolean {
  return p
    .replace(/^\.\//, '')
    .replace(/\/+$/, '')
    .split('/')
    .some((part) => isGitName(part));
}

/**
 * The first folder (never the checkout's root, whose own `.git` git finds first) that `paths` lay out as a
 * bare repository: a `HEAD` file beside `objects/` and `refs/` folders, names compared case-insensitively.
 * A folder is one that has a path below it, or is named with a trailing `/` (a tar folder entry).
 */
export function bareRepositoryIn(paths: readonly string[]): string | null {
  const files = new Map<string, Set<string>>();
  const folders = new Map<string, Set<string>>();
  const add = (map: Map<string, Set<string>>, dir: string, name: string) =>
    map.set(dir, (map.get(dir) ?? new Set()).add(name.toLowerCase()));
  for (const raw of paths) {
    const isFolder = raw.endsWith('/');
    const parts = raw.replace(/^\.\//, '').replace(/\/+$/, '').split('/');
    for (let i = 1; i < parts.length; i++) add(folders, parts.slice(0, i - 1).join('/'), parts[i - 1]!);
    add(isFolder ? folders : files, parts.slice(0, -1).join('/'), parts.at(-1)!);
  }
  for (const [dir, names] of files) {
    if (dir !== '' && names.has('head') && folders.get(dir)?.has('objects') && folders.get(dir)?.has('refs')) return `${dir}/`;
  }
  return null;
}

/** Whether a folder on disk is a repository git would use: a `.git` name, or a bare layout inside it. */
export function isRepositoryFolder(dir: string): boolean {
  if (isGitName(path.basename(dir))) return true;
  try {
    const entries = readdirSync(dir, { withFileTypes: true });
    const has = (name: string, folder: boolean) =>
      entries.some((e) => e.name.toLowerCase() === name && (folder ? e.isDirectory() : e.isFile()));
    return has('head', false) && has('objects', true) && has('refs', true);
  } catch {
    return false;
  }
}
