// Asks Playwright which tests a spec declares (`playwright test --list --reporter=json`): the
// authoritative mapping, exactly as the run will see it (describe tags, computed titles, annotations).
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DeclaredStep } from '../../contract/criteria-map.js';
import { InputError } from '../../errors.js';
import type { ReadStepsOptions } from '../types.js';
import { runProcess } from '../../process/spawn.js';
import { lastLines } from '../../util/text.js';
import { declaredSteps } from './declared-tests.js';
import { writePlaywrightConfig } from './generate-config.js';
import { readJsonReport } from './json-report.js';
import { playwrightCommand, playwrightEnv, userConfigPath } from './run-playwright.js';

const LIST_TIMEOUT_MS = 60_000;
// One listing per (spec content, root, command) per process: `check` of many tasks sharing a spec lists it once.
const cache = new Map<string, Promise<DeclaredStep[]>>();

/** The tests of `testFile` as Playwright lists them; throws InputError (file, reason, fix) when it cannot. */
export async function listSpecTests(testFile: string, options: ReadStepsOptions): Promise<DeclaredStep[]> {
  const source = await readFile(testFile);
  // The project's playwright.config decides the projects (and so the tests): its content is part of the key.
  const user = userConfigPath(options.root);
  const key = createHash('sha256')
    .update(source)
    .update(user ? await readFile(user) : '')
    .update(`\0${testFile}\0${options.root}\0${options.command ?? ''}\0${JSON.stringify(options.env)}`)
    .digest('hex');
  let listing = cache.get(key);
  if (!listing) {
    listing = listUncached(testFile, options);
    cache.set(key, listing);
    // A failure is not cached: the user fixes the spec and asks again in the same process (the MCP server).
    listing.catch(() => cache.delete(key));
  }
  return listing;
}

async function listUncached(testFile: string, options: ReadStepsOptions): Promise<DeclaredStep[]> {
  const label = path.relative(options.root, testFile) || testFile;
  const dir = await mkdtemp(path.join(tmpdir(), 'elenchos-pw-list-'));
  try {
    const files = await writePlaywrightConfig({
      testFile,
      evidenceDir: dir,
      baseURL: 'http://127.0.0.1/',
      browserPath: undefined,
      extraArgs: [],
      retries: 0,
      trace: 'retain-on-failure',
      userConfig: userConfigPath(options.root),
    });
    const { command, args } = playwrightCommand(options.root, options.command);
    const output = path.join(dir, 'list.json');
    const result = await runProcess(command, [...args, 'test', '--config', files.config, '--list', '--reporter=json'], {
      cwd: options.root,
      // The JSON goes to a file, so a spec that prints while loading cannot corrupt it.
      env: playwrightEnv(options.baseEnv, options.env, { PLAYWRIGHT_JSON_OUTPUT_FILE: output }),
      timeoutMs: LIST_TIMEOUT_MS,
    });
    const fix = 'install @playwright/test in the project (npm i -D @playwright/test) or set verifier.command';
    if (result.spawnError)
      throw new InputError(`${label}: could not start Playwright to list the tests (${command}: ${result.spawnError.message}); ${fix}`);
    if (result.timedOut) throw new InputError(`${label}: \`playwright test --list\` did not finish within ${LIST_TIMEOUT_MS / 1000}s`);
    const report = await readJsonReport(output);
    if (!report.ok) {
      const tail = lastLines(result.stderrTail || result.stdoutTail, 2, ' | ').slice(0, 400);
      throw new InputError(
        `${label}: Playwright could not list the tests (${report.reason}, exit code ${result.exitCode}${tail ? `: ${tail}` : ''}); ${fix}`,
      );
    }
    const error = report.report.errors[0];
    if (error) {
      const where = error.location ? ` at ${path.relative(options.root, error.location)}` : '';
      const first = error.message.split('\n').find((line) => line.trim() !== '') ?? 'unknown error';
      throw new InputError(`${label}: Playwright cannot load the spec${where}: ${first.trim().slice(0, 300)}`);
    }
    return declaredSteps(report.report.tests);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
