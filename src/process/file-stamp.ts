// Cheap fingerprints of executables and package folders (stat only), to notice a swapped toolchain.
import { createHash } from 'node:crypto';
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** `realpath size mtime` of one file, or "missing". */
export async function fileStamp(file: string): Promise<string> {
  try {
    const real = await realpath(file);
    const info = await stat(real);
    return `${real} ${info.size} ${info.mtimeMs}`;
  } catch {
    return `${file} missing`;
  }
}

/** A hash over `relative-path size mtime` of every file below `dir` (symlinks by target). Synchronous on
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
    const info = statSync(real);
    return `${real} ${info.size} ${info.mtimeMs}`;
  } catch {
    return `${file} missing`;
  }
}
