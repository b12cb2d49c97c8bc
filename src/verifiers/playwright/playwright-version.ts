// The @playwright/test version the project resolves (node_modules from the cwd upwards), for the run record.
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** `@playwright/test`'s version as Node would resolve it from `cwd`, or null when it is not installed. */
export async function playwrightVersion(cwd: string): Promise<string | null> {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'node_modules', '@playwright', 'test', 'package.json');
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text !== null) return (JSON.parse(text) as { version?: string }).version ?? null;
    if (path.dirname(dir) === dir) return null;
  }
}
