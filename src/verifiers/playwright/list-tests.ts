// Asks Playwright which tests a spec declares (`playwright test --list --reporter=json`): the
// authoritative mapping, exactly as the run will see it (describe tags, computed titles, annotations).
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { DeclaredStep } from '../../contract/criteria-map.js';
import { InputError } from '../../errors.js';
import { listingsDir } from '../../evidence/layout.js';
import type { ReadStepsOptions } from '../types.js';
import { runProcess } from '../../process/spawn.js';
import { lastLines } from '../../util/text.js';
import { declaredSteps } from './declared-tests.js';
import { listingsInMemory, rememberKeptListing } from './kept-listings.js';
import { writePlaywrightConfig } from './generate-config.js';
import { readJsonReport } from './json-report.js';
import { pinnedTsconfig, playwrightCommand, playwrightEnv, userConfigPath } from './run-playwright.js';
import { PLAYWRIGHT_SUPPORTED, playwrightSupport, playwrightVersion } from './playwright-version.js';
import { playwrightLockedInputs } from './spec-imports.js';
import { playwrightToolchain } from './toolchain.js';
import { leaseTransformCache } from './transform-cache.js';

const LIST_TIMEOUT_MS = 60_000;
const cache = listingsInMemory;

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
    listing = listKept(testFile, options, key);
    cache.set(key, listing);
    // A failure is not cached: the user fixes the spec and asks again in the same process (the MCP server).
    listing.catch(() => cache.delete(key));
  }
  return listing;
}

// What a kept listing was made by, besides the inputs hashed: bump it when the listing's config or its reading changes.
const KEPT_FORMAT = 'elenchos-playwright-list 1';

/**
 * A listing kept under `.elenchos/listings/playwright/`, keyed by everything that decides it: the
 * spec and every file it imports, the project's playwright.config and its imports (all by content),
 * the Playwright runner and packages (path, size and mtime of every file), the command and the child's
 * whole environment. A later `verify` of an unchanged spec starts no listing process; any edit to one
 * of those files is a new key, so it is listed again. What the key cannot see (a spec that reads a file
 * with `fs` to build a title or tag) the run still sees: its report is matched against the listing, a
 * disagreement is INCONCLUSIVE, and the run drops the kept listing (`forgetKeptListing` in kept-listings.ts).
 */
async function listKept(testFile: string, options: ReadStepsOptions, key: string): Promise<DeclaredStep[]> {
  const label = path.relative(options.root, testFile).split(path.sep).join('/');
  // A spec outside the checkout has no .elenchos/ of its own to keep a listing in.
  if (label.startsWith('../') || path.isAbsolute(label)) return listUncached(testFile, options);
  const hash = createHash('sha256').update(`${KEPT_FORMAT}\0${key}\0`);
  const env = playwrightEnv(options.baseEnv, options.env, {});
  hash.update(JSON.stringify(Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
  for (const line of await playwrightToolchain({ cwd: options.root, testFileLabel: label, command: options.command, env: options.baseEnv }))
    hash.update(`\0${line}`);
  for (const input of (await playwrightLockedInputs(options.root, label)).files) {
    hash.update(`\0${input}\0`).update(await readFile(path.join(options.root, input)).catch(() => Buffer.from('\0missing')));
  }
  const file = path.join(listingsDir(options.root, 'playwright'), `${hash.digest('hex')}.json`);
  rememberKeptListing(label, file);
  const kept = await readFile(file, 'utf8').then(parseSteps, () => null);
  if (kept) return kept;
  const steps = await listUncached(testFile, options);
  if (options.keep) {
    // Best effort: a read-only checkout still lists, it only lists again next time.
    const temp = `${file}.${process.pid}.tmp`;
    await mkdir(path.dirname(file), { recursive: true })
      .then(() => writeFile(temp, JSON.stringify(steps)))
      .then(() => rename(temp, file))
      .catch(() => rm(temp, { force: true }));
  }
  return steps;
}

function parseSteps(text: string): DeclaredStep[] | null {
  try {
    const steps: unknown = JSON.parse(text);
    const ok =
      Array.isArray(steps) &&
      steps.every(
        (s: { index?: unknown; heading?: unknown; verifies?: unknown }) =>
          typeof s?.index === 'number' &&
          typeof s?.heading === 'string' &&
          Array.isArray(s?.verifies) &&
          s.verifies.every((v: unknown) => typeof v === 'string'),
      );
    return ok ? (steps as DeclaredStep[]) : null;
  } catch {
    return null;
  }
}

async function listUncached(testFile: string, options: ReadStepsOptions): Promise<DeclaredStep[]> {
  const label = path.relative(options.root, testFile) || testFile;
  const userConfig = userConfigPath(options.root);
  // Playwright compiles the spec and configs only into a cache no agent could have written
  // (transform-cache.ts). The listing's config is written into the same private folder, at a path that
  // is the same for every listing of this spec while the folder is reused: Playwright's cache keys a
  // file by its path and content, so a config at a new path is compiled again, and loading Babel for it
  // was about a quarter of a listing's CPU.
  const lease = await leaseTransformCache();
  const output = path.join(lease.root, `list-${process.pid}-${randomUUID()}.json`);
  try {
    const configDir = await listConfigDir(lease.root, `${testFile}\0${userConfig ?? ''}`);
    const files = await writePlaywrightConfig({
      testFile,
      evidenceDir: configDir,
      baseURL: 'http://127.0.0.1/',
      browserPath: undefined,
      extraArgs: [],
      retries: 0,
      trace: 'retain-on-failure',
      userConfig,
    });
    const { command, args } = playwrightCommand(options.root, options.command);
    const tsconfig = await pinnedTsconfig(options.root, label, configDir);
    const argv = [...args, 'test', '--config', files.config, '--tsconfig', tsconfig, '--list', '--reporter=json'];
    const result = await runProcess(command, argv, {
      cwd: options.root,
      // The JSON goes to a file, so a spec that prints while loading cannot corrupt it.
      env: playwrightEnv(options.baseEnv, options.env, { PLAYWRIGHT_JSON_OUTPUT_FILE: output, PWTEST_CACHE_DIR: lease.cache }),
      timeoutMs: LIST_TIMEOUT_MS,
    });
    const fix = 'install @playwright/test in the project (npm i -D @playwright/test) or set verifier.command';
    if (result.spawnError)
      throw new InputError(`${label}: could not start Playwright to list the tests (${command}: ${result.spawnError.message}); ${fix}`);
    const report = await readJsonReport(output);
    if (!report.ok || result.timedOut) {
      // A Playwright below the supported range fails here in its own words: the version is the cause to name.
      const old = await tooOldPlaywright(options.root);
      if (old) throw new InputError(`${label}: ${old}`);
      if (result.timedOut) throw new InputError(`${label}: \`playwright test --list\` did not finish within ${LIST_TIMEOUT_MS / 1000}s`);
      const reason = report.ok ? 'no report' : report.reason;
      const tail = lastLines(result.stderrTail || result.stdoutTail, 2, ' | ').slice(0, 400);
      throw new InputError(
        `${label}: Playwright could not list the tests (${reason}, exit code ${result.exitCode}${tail ? `: ${tail}` : ''}); ${fix}`,
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
    await rm(output, { force: true });
    await lease.release();
  }
}

/** Why the listing failed when the project's @playwright/test is below the supported range, with the fix; else null. */
async function tooOldPlaywright(root: string): Promise<string | null> {
  const version = await playwrightVersion(root);
  if (version === null || playwrightSupport(version) !== 'too-old') return null;
  return `@playwright/test ${version} is below the supported range (>=${PLAYWRIGHT_SUPPORTED.oldest}, tested up to ${PLAYWRIGHT_SUPPORTED.newestTested}), and it could not list the tests; fix: upgrade it (npm install -D @playwright/test@latest)`;
}

/** The listing config's folder inside the private `root`: one per spec and project config. */
async function listConfigDir(root: string, key: string): Promise<string> {
  const dir = path.join(root, 'list', createHash('sha256').update(key).digest('hex').slice(0, 32));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}
