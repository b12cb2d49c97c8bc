// The project's own playwright.config, used where it is safe: its `use`, `timeout`, `expect` and
// `projects` are kept; what Elenchos must own to judge (baseURL, reporters, outputDir, retries, workers,
// the spec, headless, traces, screenshots, the browser) is set over it, with one note per override.
import { existsSync } from 'node:fs';
import path from 'node:path';

const NAMES = [
  'playwright.config.ts',
  'playwright.config.mts',
  'playwright.config.cts',
  'playwright.config.js',
  'playwright.config.mjs',
  'playwright.config.cjs',
];

/** Repo-relative name of the project's playwright.config in `root` (where `playwright test` would find it), or null. */
export function findUserConfig(root: string): string | null {
  return NAMES.find((name) => existsSync(path.join(root, name))) ?? null;
}

/**
 * Source of the generated config's merge, run by Playwright when it loads the config (the user's file
 * may be TypeScript and import anything: only Playwright can load it). `owned` is Elenchos's config
 * object; the notes go to `notesFile` (every worker loads the config: the same file, rewritten whole).
 */
export function mergeSource(userConfig: string, notesFile: string): string {
  return `import userExport from ${JSON.stringify(userConfig)};
import { writeFileSync } from 'node:fs';

const WHY = {
  testDir: 'Elenchos runs exactly the task\\'s spec', testMatch: 'Elenchos runs exactly the task\\'s spec', testIgnore: 'Elenchos runs exactly the task\\'s spec',
  reporter: 'Elenchos reads its own JSON report', outputDir: 'evidence goes to the attempt\\'s folder', retries: 'Elenchos retries once to see flaky tests (verifier.args ["--retries=N"] changes it)',
  workers: 'Elenchos runs one worker', fullyParallel: 'Elenchos runs one worker', webServer: 'Elenchos starts the app itself (app.command)',
  globalSetup: 'not run by Elenchos', globalTeardown: 'not run by Elenchos', preserveOutput: 'evidence is always kept', updateSnapshots: 'a missing baseline is a failure, never written during a verdict',
  baseURL: 'the app Elenchos started', headless: 'Elenchos runs headless (verify --verifier-only --headed shows the browser)',
  trace: 'Elenchos records traces of failures at the price of a bare run', screenshot: 'Elenchos takes the picture of each traced failure from its trace',
  executablePath: 'verifier.browserPath / the browser Elenchos found', browserName: 'Elenchos runs Chromium',
};
const KEPT = new Set(['timeout', 'expect', 'use', 'projects', 'metadata', 'name']);
const PROJECT_KEPT = new Set(['name', 'use', 'timeout', 'expect', 'metadata']);
const OWNED_USE = ['baseURL', 'headless', 'trace', 'screenshot'];
const file = ${JSON.stringify(path.basename(userConfig))};
const notes = [];
const note = (key, leaf) => notes.push(file + ': ' + key + ' is ignored: ' + (WHY[leaf] ?? 'not used by Elenchos'));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const browserOf = (use) => use?.browserName ?? use?.defaultBrowserType ?? 'chromium';

function noteUse(owned, use, where) {
  const u = use ?? {};
  for (const key of OWNED_USE) if (u[key] !== undefined && !same(u[key], owned.use[key])) note(where + 'use.' + key, key);
  if (u.launchOptions?.executablePath && owned.use.launchOptions.executablePath) note(where + 'use.launchOptions.executablePath', 'executablePath');
}

function mergeUse(owned, use) {
  const u = use ?? {};
  const launch = u.launchOptions ?? {};
  return {
    ...u,
    ...owned.use,
    browserName: 'chromium',
    launchOptions: { ...launch, ...owned.use.launchOptions, args: [...(launch.args ?? []), ...owned.use.launchOptions.args] },
  };
}

/** The config Playwright runs: the user's kept settings with Elenchos's over them. */
export function mergeConfig(owned) {
  const user = userExport && typeof userExport === 'object' ? userExport : {};
  for (const key of Object.keys(user)) if (!KEPT.has(key)) note(key, key);
  noteUse(owned, user.use, '');
  if (browserOf(user.use) !== 'chromium' && !Array.isArray(user.projects)) note('use.browserName', 'browserName');
  const config = { ...owned, use: mergeUse(owned, user.use) };
  for (const key of ['timeout', 'expect', 'metadata']) if (user[key] !== undefined) config[key] = user[key];
  if (Array.isArray(user.projects) && user.projects.length > 0) {
    const projects = [];
    for (const project of user.projects) {
      const name = project.name ?? '';
      const where = 'projects[' + JSON.stringify(name) + '].';
      // A project of its own files (a setup project) would run the task's spec a second time.
      if (project.testMatch !== undefined || project.testDir !== undefined) { notes.push(file + ': project ' + JSON.stringify(name) + ' is not run: it selects its own test files'); continue; }
      const browser = browserOf({ ...user.use, ...project.use });
      if (browser !== 'chromium') { notes.push(file + ': project ' + JSON.stringify(name) + ' is not run: Elenchos runs Chromium, not ' + browser); continue; }
      for (const key of Object.keys(project)) if (!PROJECT_KEPT.has(key)) note(where + key, key);
      const kept = Object.fromEntries(Object.entries(project).filter(([key]) => PROJECT_KEPT.has(key)));
      noteUse(owned, project.use, where);
      projects.push({ ...kept, use: mergeUse(owned, { ...user.use, ...project.use }) });
    }
    if (projects.length > 0) config.projects = projects;
  }
  writeFileSync(${JSON.stringify(notesFile)}, JSON.stringify(notes));
  return config;
}
`;
}
