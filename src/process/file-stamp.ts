// Cheap fingerprints of executables and package folders (stat only), to notice a swapped toolchain.
import { createHash } from 'node:crypto';
import { readdir, realpath, stat } from 'node:fs/promises';
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

/** A hash over `relative-path size mtime` of every file below `dir` (symlinks by target). */
export async function treeStamp(dir: string): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (current: string): Promise<void> => {
    const entries = (await readdir(current, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) await walk(full);
      else hash.update(`${path.relative(dir, full)} ${await fileStamp(full)}\n`);
    }
  };
  await walk(await realpath(dir));
  return hash.digest('hex');
}
