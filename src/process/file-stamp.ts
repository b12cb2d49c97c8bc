// Cheap fingerprints of executables and package folders (stat only), to notice a swapped toolchain.
// A stamp is the inode, size, and mtime and ctime in ns: a user can put an mtime back (utimes) and keep a
// size, but cannot set a ctime, and a file replaced by a rename has another inode.
import { createHash } from 'node:crypto';
import { readdirSync, realpathSync, statSync, type BigIntStats } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** `realpath size mtime ctime inode` of one file, or "missing". */
export async function fileStamp(file: string): Promise<string> {
  try {
    const real = await realpath(file);
    return `${real} ${stampOf(await stat(real, { bigint: true }))}`;
  } catch {
    return `${file} missing`;
  }
}

/** A hash over `relative-path size mtime ctime inode` of every file below `dir` (symlinks by target). Synchronous on
 * purpose: a package folder holds hundreds of files, and one awaited stat after another cost up to 0.7 s
 * of wall clock per call on a loaded machine (a run stamps the toolchain twice); this takes milliseconds. */
export async function treeStamp(dir: string): Promise<string> {
  const hash = createHash('sha256');
  const walk = (current: string): void => {
    const entries = readdirSync(current, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else hash.update(`${path.relative(dir, full)} ${fileStampSync(full)}\n`);
    }
  };
  walk(await realpath(dir));
  return hash.digest('hex');
}

function fileStampSync(file: string): string {
  try {
    const real = realpathSync.native(file);
    return `${real} ${stampOf(statSync(real, { bigint: true }))}`;
  } catch {
    return `${file} missing`;
  }
}

function stampOf(info: BigIntStats): string {
  return `${info.size} ${info.mtimeNs} ${info.ctimeNs} ${info.ino}`;
}
