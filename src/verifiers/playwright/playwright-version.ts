// The @playwright/test version the project resolves (node_modules from the cwd upwards), for the run record.
import path from 'node:path';
import { readJsonFile } from '../../util/json-file.js';

/** `@playwright/test`'s version as Node would resolve it from `cwd`, or null when it is not installed. */
export async function playwrightVersion(cwd: string): Promise<string | null> {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'node_modules', '@playwright', 'test', 'package.json');
    const read = await readJsonFile(file).catch((error: { cause?: NodeJS.ErrnoException }) =>
      error.cause?.code === 'ENOENT' ? null : { value: null },
    );
    if (read !== null) {
      const version = (read.value as { version?: unknown } | null)?.version;
      return typeof version === 'string' ? version : null;
    }
    if (path.dirname(dir) === dir) return null;
  }
}
