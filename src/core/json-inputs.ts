// The JSON files a verifier reads besides the task, each read as its owner reads it: Kane's
// `.testmuai/variables/*.json` as strict JSON (the same reader as every JSON input), a tsconfig or
// jsconfig as TypeScript reads it (JSONC: comments and trailing commas allowed). A broken one is refused
// by `check` and `run` with the file at fault and its line, not by the verifier.
import path from 'node:path';
import { ElenchosError } from '../errors.js';
import { readJsonFile } from '../util/json-file.js';
import { readRegularFile, TEST_FILE_LIMIT } from '../util/regular-file.js';

const TS_CONFIG = /(^|\/)(tsconfig(\.[\w-]+)?|jsconfig)\.json$/;

/** One problem line per verifier input ending in `.json` that its owner could not read. */
export async function checkJsonInputs(root: string, inputs: readonly string[]): Promise<string[]> {
  const problems: string[] = [];
  for (const file of inputs.filter((f) => f.endsWith('.json'))) {
    try {
      if (TS_CONFIG.test(file) || isTsconfigLike(file)) {
        const problem = await tsconfigProblem(root, file);
        if (problem) problems.push(problem);
      } else await readJsonFile(path.join(root, file), file);
    } catch (error) {
      if (!(error instanceof ElenchosError)) throw error;
      // A missing input is reported by the caller with its own fix.
      if ((error.cause as NodeJS.ErrnoException | undefined)?.code !== 'ENOENT') problems.push(`${error.message}; fix: edit ${file}`);
    }
  }
  return problems;
}

// A file a tsconfig `extends` may have any name (`tsconfig.base.json`, `.svelte-kit/tsconfig.json`).
function isTsconfigLike(file: string): boolean {
  return /(^|\/)\.(svelte-kit|nuxt|astro)\//.test(file) || /tsconfig/i.test(path.posix.basename(file));
}

/** What TypeScript says of a tsconfig's syntax (the first error, as `file:line:column`), or null. */
async function tsconfigProblem(root: string, file: string): Promise<string | null> {
  const text = (await readRegularFile(path.join(root, file), { label: file, maxBytes: TEST_FILE_LIMIT })).toString('utf8');
  // Loaded only here: a Kane task's check and run never load the TypeScript parser (test/e2e/light-commands.test.ts).
  const { default: ts } = await import('typescript');
  const diagnostic = ts.parseConfigFileTextToJson(file, text).error;
  if (!diagnostic) return null;
  const { line, character } = diagnostic.file
    ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0)
    : { line: 0, character: 0 };
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
  return `${file}:${line + 1}:${character + 1}: TypeScript cannot read it: ${message}; fix: edit ${file}`;
}
