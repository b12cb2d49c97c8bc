// The JSON files a verifier reads besides the task (Kane's `.testmuai/variables/*.json`): read with the
// same reader as every JSON input, so a broken one is refused by `check` and `run`, not by the verifier.
import path from 'node:path';
import { ElenchosError } from '../errors.js';
import { readJsonFile } from '../util/json-file.js';

/** One problem line per verifier input ending in `.json` that is not a readable, strict JSON file. */
export async function checkJsonInputs(root: string, inputs: readonly string[]): Promise<string[]> {
  const problems: string[] = [];
  for (const file of inputs.filter((f) => f.endsWith('.json'))) {
    try {
      await readJsonFile(path.join(root, file), file);
    } catch (error) {
      if (!(error instanceof ElenchosError)) throw error;
      // A missing input is reported by the caller with its own fix.
      if ((error.cause as NodeJS.ErrnoException | undefined)?.code !== 'ENOENT') problems.push(error.message);
    }
  }
  return problems;
}
