// The Playwright replay (test/fixtures/bin/playwright-replay) is only as good as its captures: they must be
// of the @playwright/test installed here, and an invocation it has no capture for must fail loudly (never
// a default verdict). What it writes must be what the recording stored, byte for byte.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { playwrightAdapter } from '../../src/verifiers/playwright/adapter.js';
import { copyFixtureSpecs, criteria, linkNodeModules, listTree, REPO_ROOT, verifyContext } from '../fixtures/playwright/verify-context.js';
import { CAPTURES, REPLAY_BIN, REPLAY_BROWSER, REPLAY_COMMAND, REPLAY_PORTS, UNKNOWN_INVOCATION } from '../helpers/playwright-replay.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

const RERECORD = 'node scripts/record-playwright.js';
const installed = JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules/@playwright/test/package.json'), 'utf8')).version as string;
const recorded = existsSync(CAPTURES) ? readdirSync(CAPTURES).filter((name) => /^\d+\.\d+\.\d+/.test(name)) : [];

function project(): string {
  const root = tempDir('elenchos-pw-replay-');
  linkNodeModules(root);
  copyFixtureSpecs(root);
  return root;
}

describe.concurrent('the Playwright replay', () => {
  it('has captures of the installed @playwright/test, and only of it', () => {
    expect(
      recorded,
      `the captures are for Playwright ${recorded.join(', ')}, ${installed} is installed: re-record with ${RERECORD}`,
    ).toEqual([installed]);
    const dir = path.join(CAPTURES, installed);
    expect(readFileSync(path.join(dir, 'README.md'), 'utf8'), `no provenance: re-record with ${RERECORD}`).toContain(
      `@playwright/test ${installed}`,
    );
    const captures = readdirSync(dir).filter((name) => name !== 'README.md');
    expect(captures.length).toBeGreaterThan(0);
    for (const name of captures) {
      const invocation = JSON.parse(readFileSync(path.join(dir, name, 'invocation.json'), 'utf8'));
      expect(invocation.version, `${name} is of Playwright ${invocation.version}: re-record with ${RERECORD}`).toBe(installed);
      const variants = readdirSync(path.join(dir, name)).filter((v) => v.startsWith('app-'));
      expect(variants.length, `${name} has no recorded run: re-record with ${RERECORD}`).toBeGreaterThan(0);
      for (const variant of variants)
        expect(existsSync(path.join(dir, name, variant, 'exit.json')), `${name}/${variant} has no exit: re-record with ${RERECORD}`).toBe(
          true,
        );
    }
  });

  it('refuses what is not `playwright test --config … --tsconfig …`, naming it and how to re-record', () => {
    for (const args of [['--version'], ['test', 'tests/pass.spec.ts'], ['show-report']]) {
      const result = spawnSync(REPLAY_BIN, args, { encoding: 'utf8' });
      expect(result.status).toBe(UNKNOWN_INVOCATION);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        new RegExp(`^playwright-replay: unknown invocation: playwright ${args.join(' ')}.*; re-record with ${RERECORD}\\n$`),
      );
    }
  });

  it('refuses a spec it has no capture for: the listing fails naming it, never a default verdict', async () => {
    const root = project();
    writeFiles(root, {
      'tests/unrecorded.spec.ts': "import { test } from '@playwright/test';\ntest('never recorded @AC-001', async () => {});\n",
    });
    await expect(
      playwrightAdapter.readSteps(path.join(root, 'tests/unrecorded.spec.ts'), {
        root,
        command: REPLAY_BIN,
        env: {},
        baseEnv: process.env,
      }),
    ).rejects.toThrow(/exit code 86: playwright-replay: no capture for this invocation \(unrecorded-list-/);
  });

  it('refuses a recorded spec run with arguments it was not recorded with: VERIFIER_ERROR naming the replay, never PASS', async () => {
    const root = project();
    const ctx = await verifyContext({
      cwd: root,
      spec: 'tests/pass.spec.ts',
      url: `http://127.0.0.1:${REPLAY_PORTS.app}/`,
      evidenceDir: path.join(tempDir('elenchos-pw-replay-evidence-'), 'verifier'),
      criteria: criteria(2),
      args: ['--retries=7'],
      command: REPLAY_BIN,
      browserPath: REPLAY_BROWSER,
    });
    const result = await playwrightAdapter.verify(ctx);
    expect(result.status).toBe('VERIFIER_ERROR');
    expect(result.exitCode).toBe(UNKNOWN_INVOCATION);
    expect(result.summary).toMatch(/no JSON report/);
    expect(readFileSync(path.join(ctx.evidenceDir, 'stderr.log'), 'utf8')).toMatch(/no capture for this invocation \(pass-run-/);
  });

  it('writes what the recording stored, byte for byte, with the recording folders put back as this run’s', async () => {
    const root = project();
    const evidenceDir = path.join(tempDir('elenchos-pw-replay-evidence-'), 'verifier');
    const ctx = await verifyContext({
      cwd: root,
      spec: 'tests/missing-button.spec.ts',
      url: `http://127.0.0.1:${REPLAY_PORTS.app}/`,
      evidenceDir,
      criteria: criteria(2),
      args: ['--retries=0'],
      command: REPLAY_COMMAND,
      browserPath: REPLAY_BROWSER,
    });
    const result = await playwrightAdapter.verify(ctx);
    expect(result.status, result.summary).toBe('FAIL');
    const name = readdirSync(path.join(CAPTURES, installed)).find((n) => n.startsWith('missing-button-run-'))!;
    const [variant] = readdirSync(path.join(CAPTURES, installed, name)).filter((v) => v.startsWith('app-'));
    const capture = path.join(CAPTURES, installed, name, variant!);
    const files = path.join(capture, 'files');
    const stored = listTree(files).filter((rel) => !rel.endsWith('/'));
    expect(stored.some((rel) => rel.endsWith('trace.zip'))).toBe(true);
    for (const rel of stored) {
      const bytes = readFileSync(path.join(files, rel));
      const written = readFileSync(path.join(evidenceDir, rel));
      if (rel.endsWith('.zip')) expect(written.equals(bytes), rel).toBe(true);
      else
        expect(written.toString('utf8')).toBe(bytes.toString('utf8').replaceAll('@@CONFIGDIR@@', evidenceDir).replaceAll('@@CWD@@', root));
    }
    const stdout = readFileSync(path.join(capture, 'stdout'), 'utf8');
    expect(readFileSync(path.join(evidenceDir, 'stdout.log'), 'utf8')).toBe(
      stdout.replaceAll('@@CONFIGDIR@@', evidenceDir).replaceAll('@@CWD@@', root),
    );
  });

  it('names its sources, which the installed Playwright still has', () => {
    const header = readFileSync(REPLAY_BIN, 'utf8').split('\nimport ')[0]!;
    const sources = [...header.matchAll(/lib\/[\w/]+\.js/g)].map((m) => m[0]);
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources)
      expect(existsSync(path.join(REPO_ROOT, 'node_modules/playwright', source)), `${source}: re-read and re-record with ${RERECORD}`).toBe(
        true,
      );
  });
});
