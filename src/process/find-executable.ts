// Finds an executable the way a shell would: a path with a slash relative to `cwd`, else on PATH.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';

/** The executable's absolute path, or null when it cannot be found or run. */
export async function findExecutable(command: string, options: { cwd: string; pathEnv: string | undefined }): Promise<string | null> {
  const candidates = command.includes('/')
    ? [path.resolve(options.cwd, command)]
    : (options.pathEnv ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, command));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  return null;
}
