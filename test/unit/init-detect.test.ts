// What init makes of a project: commands per package manager, the Playwright testDir it trusts, its picks.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appCommandFor,
  appUrlFor,
  chooseAgent,
  chooseVerifier,
  detectProject,
  setupCacheFor,
  setupCommandFor,
  type DetectedProject,
} from '../../src/core/init/detect-project.js';
import { planInit } from '../../src/core/init/init-project.js';
import { renderConfig } from '../../src/core/init/scaffold.js';
import { FIXTURES } from '../helpers/project.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

const base: DetectedProject = {
  root: '/nowhere',
  packageManager: 'npm',
  packageManagerWhy: null,
  appScript: 'dev',
  playwrightConfig: null,
  playwrightTestDir: null,
  playwrightDependency: false,
  nextjs: false,
  kaneCli: null,
  claude: null,
  codex: null,
  gemini: null,
  opencode: null,
};

describe('init detection', () => {
  it('runs the dev script on {port} with each package manager, and nothing without a script', () => {
    expect(appCommandFor(base)).toBe('npm run dev -- --port {port}');
    expect(appCommandFor({ ...base, packageManager: 'pnpm', appScript: 'start' })).toBe('pnpm run start --port {port}');
    expect(appCommandFor({ ...base, packageManager: 'yarn' })).toBe('yarn dev --port {port}');
    expect(appCommandFor({ ...base, appScript: null })).toBeNull();
    expect(setupCommandFor({ ...base, packageManager: null })).toBeNull();
    expect(setupCommandFor({ ...base, packageManager: 'yarn' })).toBe('yarn install --frozen-lockfile');
  });

  it('says why it chose a package manager when several lockfiles leave room for doubt', async () => {
    const detect = async (files: Record<string, string>) => {
      const root = tempDir('elenchos-detect-pm-');
      writeFiles(root, { 'package.json': '{}', ...files });
      const found = await detectProject(root, { PATH: '' });
      return [found.packageManager, found.packageManagerWhy];
    };
    expect(await detect({ 'yarn.lock': '' })).toEqual(['yarn', null]);
    expect(await detect({})).toEqual(['npm', null]);
    expect(await detect({ 'yarn.lock': '', 'package-lock.json': '{}' })).toEqual([
      'yarn',
      'chose yarn: yarn.lock and package-lock.json exist, and yarn.lock wins; a package-lock.json beside it is usually what an npm install -D left in a yarn project; to use another, delete the other lockfile or set "packageManager" in package.json',
    ]);
    // package.json's own word (Corepack's) decides over the lockfiles, and says so when they disagree.
    expect(await detect({ 'package.json': '{"packageManager":"npm@10.8.0"}', 'yarn.lock': '', 'package-lock.json': '{}' })).toEqual([
      'npm',
      'package.json says "packageManager": "npm@10.8.0" (lockfiles: yarn.lock, package-lock.json)',
    ]);
    expect(await detect({ 'package.json': '{"packageManager":"pnpm@9.0.0"}', 'pnpm-lock.yaml': '' })).toEqual(['pnpm', null]);
  });

  it('caches node_modules only for a lockfile install (npm ci)', () => {
    expect(setupCacheFor('npm ci')).toEqual({ key: ['package-lock.json', 'package.json'], paths: ['node_modules'] });
    expect(setupCacheFor('npm install --no-package-lock')).toBeNull();
    expect(setupCacheFor('pnpm install --frozen-lockfile')).toBeNull();
    expect(setupCacheFor(null)).toBeNull();
  });

  it("prefers the project's Playwright over a kane-cli on PATH, and an agent on PATH over the default", () => {
    expect(chooseVerifier({ ...base, kaneCli: '/bin/kane-cli', playwrightDependency: true })).toEqual({
      verifier: 'playwright',
      why: '@playwright/test is a dependency',
    });
    expect(chooseVerifier({ ...base, kaneCli: '/bin/kane-cli' }).verifier).toBe('kane');
    expect(chooseAgent({ ...base, codex: '/bin/codex' })).toEqual({ agent: 'codex', why: 'codex is on PATH (/bin/codex)' });
    expect(chooseAgent({ ...base, codex: '/bin/codex', claude: '/bin/claude' }).agent).toBe('claude');
  });

  it('finds Gemini CLI and OpenCode on PATH, and picks them after Claude Code and Codex', async () => {
    const found = await detectProject(tempDir('elenchos-detect-'), { PATH: path.join(FIXTURES, 'bin') });
    expect(found).toMatchObject({ gemini: path.join(FIXTURES, 'bin', 'gemini'), opencode: path.join(FIXTURES, 'bin', 'opencode') });
    expect(chooseAgent({ ...base, gemini: '/bin/gemini', opencode: '/bin/opencode' })).toEqual({
      agent: 'gemini',
      why: 'gemini is on PATH (/bin/gemini)',
    });
    expect(chooseAgent({ ...base, opencode: '/bin/opencode' })).toEqual({ agent: 'opencode', why: 'opencode is on PATH (/bin/opencode)' });
    expect(chooseAgent({ ...base, codex: '/bin/codex', gemini: '/bin/gemini' }).agent).toBe('codex');
    expect(chooseAgent(base).why).toBe('none of claude, codex, gemini, opencode is on PATH: Claude Code is the default');
  });

  it.each([
    ["testDir: './e2e'", 'e2e'],
    ['testDir: "tests/ui/"', 'tests/ui'],
    ["testDir: path.join(__dirname, 'e2e')", null],
    ["testDir: '../outside'", null],
    ["testDir: '/abs/path'", null],
    ['testDir: `${root}/e2e`', null],
  ])('reads %s from playwright.config.ts as %s', async (line, expected) => {
    const root = tempDir();
    writeFiles(root, { 'playwright.config.ts': `export default { ${line} };\n`, 'package.json': '{ "scripts": { "dev": "x" } }' });
    const detected = await detectProject(root, { PATH: '' });
    expect(detected).toMatchObject({
      playwrightConfig: 'playwright.config.ts',
      playwrightTestDir: expected,
      appScript: 'dev',
      packageManager: 'npm',
    });
  });

  it('a package.json that does not parse is no package.json', async () => {
    const root = tempDir();
    writeFiles(root, { 'package.json': '{ "scripts": ' });
    expect(await detectProject(root, { PATH: '' })).toMatchObject({ packageManager: null, appScript: null, playwrightDependency: false });
  });

  it('detects Next.js by its dependency or its next.config, and gives it app.url on localhost (next dev blocks 127.0.0.1)', async () => {
    const byDependency = tempDir();
    writeFiles(byDependency, { 'package.json': '{ "scripts": { "dev": "next dev" }, "dependencies": { "next": "16.5.0" } }' });
    expect(await detectProject(byDependency, { PATH: '' })).toMatchObject({ nextjs: true });
    const byConfig = tempDir();
    writeFiles(byConfig, { 'next.config.mjs': 'export default {};\n' });
    expect(await detectProject(byConfig, { PATH: '' })).toMatchObject({ nextjs: true });
    const vite = tempDir();
    writeFiles(vite, { 'package.json': '{ "scripts": { "dev": "vite" }, "devDependencies": { "vite": "7.0.0" } }' });
    expect(await detectProject(vite, { PATH: '' })).toMatchObject({ nextjs: false });

    expect(appUrlFor({ ...base, nextjs: true })).toEqual({ url: 'http://localhost:{port}/', why: expect.stringContaining('localhost') });
    expect(appUrlFor(base)).toEqual({ url: 'http://127.0.0.1:{port}/', why: null });
    const config = (appUrl: string) =>
      JSON.parse(
        renderConfig({
          verifier: 'playwright',
          agent: 'claude',
          appCommand: 'npm run dev -- --port {port}',
          appUrl,
          setupCommand: null,
          testFile: 'tests/x.spec.ts',
        }),
      );
    expect(config(appUrlFor({ ...base, nextjs: true }).url).app.url).toBe('http://localhost:{port}/'); // before: always 127.0.0.1
    expect(config(appUrlFor(base).url).app.url).toBe('http://127.0.0.1:{port}/');
  });

  it("init's plan for a Next.js project writes app.url on localhost and says why", async () => {
    const root = tempDir();
    writeFiles(root, { 'package.json': '{ "scripts": { "dev": "next dev" }, "dependencies": { "next": "16.5.0" } }' });
    const plan = await planInit({ cwd: root, env: { PATH: '' } });
    expect(plan.choices).toMatchObject({ appUrl: 'http://localhost:{port}/', appUrlWhy: expect.stringContaining('Next.js') });
    const config = plan.files.find((f) => f.path === 'elenchos.config.json');
    expect(JSON.parse(config!.content).app.url).toBe('http://localhost:{port}/');
  });

  it('init writes agent.sandbox "auto" and, where bubblewrap is missing, says so and how to install it', async () => {
    const root = tempDir();
    writeFiles(root, { 'package.json': '{ "scripts": { "dev": "vite" } }' });
    const plan = await planInit({ cwd: root, env: { PATH: '' }, bwrap: '/nonexistent/bwrap' });
    expect(plan.choices.sandbox).toEqual({
      mode: 'none',
      why: 'agent.sandbox is "auto" and bubblewrap is not installed at /nonexistent/bwrap',
      fix: expect.stringContaining('apt-get install bubblewrap'),
    });
    expect(plan.next).toContainEqual(
      expect.stringMatching(
        /^install bubblewrap \(Debian\/Ubuntu: apt-get install bubblewrap.*: agent\.sandbox "auto" then runs the agent/,
      ),
    );
    const config = plan.files.find((f) => f.path === 'elenchos.config.json');
    expect(JSON.parse(config!.content).agent).toMatchObject({ sandbox: 'auto' });
  });
});
