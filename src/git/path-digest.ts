// One working-tree path reduced to a short string that changes whenever what a reader sees changes.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readlink } from 'node:fs/promises';
import { git, gitBytes } from './git.js';

/** `deleted`, `link:<target>`, `file:<755|644>:<sha256>` or `dir:<head>` for the path as it is now. */
export async function digestPath(absPath: string): Promise<string> {
  let stats;
  try {
    stats = await lstat(absPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'deleted';
    throw error;
  }
  // Symlinks are compared by the target string, never followed: a link into /tmp must not make
  // the snapshot depend on files outside the repository.
  if (stats.isSymbolicLink()) return `link:${await readlink(absPath)}`;
  // Git records only the owner's exec bit; anything else would be noise from the umask.
  if (stats.isFile()) return `file:${stats.mode & 0o100 ? '755' : '644'}:${await sha256File(absPath)}`;
  if (stats.isDirectory()) {
    // A submodule or a nested repository git does not enter: its commit is the cheap, honest summary.
    const head = await git(['rev-parse', '--verify', '-q', 'HEAD'], { cwd: absPath }).catch(() => '');
    return `dir:${head.trim()}`;
  }
  return `other:${stats.mode.toString(8)}`;
}

/** SHA-256 of a file's bytes, streamed. */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** What `repoPath` holds in commit `head`, as `digestPath` would say of it in a checkout ("deleted" when absent). */
export async function digestInCommit(cwd: string, head: string, repoPath: string): Promise<string> {
  const listed = await git(['ls-tree', '-z', head, '--', repoPath], { cwd });
  const entry = listed.split('\0').find((line) => line.endsWith(`\t${repoPath}`));
  if (!entry) return 'deleted';
  const [mode, type, oid] = entry.slice(0, entry.indexOf('\t')).split(' ');
  if (type !== 'blob') return `${type}:${oid}`;
  const bytes = await gitBytes(['cat-file', 'blob', oid!], { cwd });
  if (mode === '120000') return `link:${bytes.toString('utf8')}`;
  return `file:${mode === '100755' ? '755' : '644'}:${createHash('sha256').update(bytes).digest('hex')}`;
}
