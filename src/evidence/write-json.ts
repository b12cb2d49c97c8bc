// JSON evidence written so a crash leaves either the old file or the new one, never half of one.
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** The exact text `writeJsonAtomic` writes: 2-space JSON and a trailing newline (the manifest hashes these bytes). */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Writes `value` as 2-space JSON with a trailing newline via a temp file and a rename. */
export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await writeTextAtomic(file, jsonText(value));
}

/** Writes `text` to a synced temp file beside `file`, then renames it over `file`. */
export async function writeTextAtomic(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(text);
      await handle.sync(); // the rename must not reach the disk before the bytes do
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}
