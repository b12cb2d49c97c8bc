// verifyOnce (the core) and `elenchos verify --verifier-only` (the built CLI) against a real loopback app.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyOnce } from '../../src/core/verify/verify-once.js';
import { BIN } from '../helpers/cli.js';
import { taskJson, tempDir, tempRepo } from '../helpers/temp.js';
import { FAKE_BIN, simpleTest } from './kane-harness.js';

let server: Server;
let okUrl: string;
let brokenUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead(req.url === '/broken' ? 500 : 200, { 'content-type': 'text/html' });
    res.end('<h1>tasks</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  okUrl = `http://127.0.0.1:${port}/`;
  brokenUrl = `http://127.0.0.1:${port}/broken`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function repo(scenario: string): string {
  const config = { verifier: { type: 'kane', env: { FAKE_KANE_SCENARIO: scenario, FAKE_KANE_CHECK_URL: '1' } } };
  return tempRepo({
    'elenchos.config.json': JSON.stringify(config),
    'tasks/add-task.json': taskJson(),
    'tests/add-task_test.md': simpleTest(2),
  });
}

function env(): NodeJS.ProcessEnv {
  return { PATH: `${FAKE_BIN}${path.delimiter}${process.env.PATH ?? ''}`, HOME: tempDir('elenchos-home-') };
}

/** The built CLI, asynchronously (the app under test lives in this process and must keep answering). */
function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: env(), timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe.concurrent('verifyOnce', () => {
  it('loads config and task, runs kane against the app, and passes when it answers', async () => {
    const cwd = repo('pass');
    const progress: string[] = [];
    const result = await verifyOnce({
      cwd,
      taskFile: 'tasks/add-task.json',
      url: okUrl,
      env: env(),
      evidenceDir: tempDir(),
      onProgress: (p) => progress.push(p.kind),
    });
    expect(result.status).toBe('PASS');
    expect(result.criteria.map((c) => [c.id, c.status])).toEqual([
      ['AC-001', 'PASS'],
      ['AC-002', 'PASS'],
    ]);
    expect(progress).toEqual(['step-start', 'step-end', 'step-start', 'step-end']);
  });

  it('fails step 1 as a product failure when the app does not answer 2xx', async () => {
    const result = await verifyOnce({
      cwd: repo('pass'),
      taskFile: 'tasks/add-task.json',
      url: brokenUrl,
      env: env(),
      evidenceDir: tempDir(),
    });
    expect(result.status).toBe('FAIL');
    expect(result.findings[0]).toMatchObject({
      step: 1,
      kind: 'product_failure',
      verdict: { oneLiner: `${brokenUrl} did not answer with a 2xx status` },
    });
  });

  it('rejects a --url that is not http(s)', async () => {
    await expect(
      verifyOnce({ cwd: repo('pass'), taskFile: 'tasks/add-task.json', url: 'ftp://x', env: env(), evidenceDir: tempDir() }),
    ).rejects.toThrow('must be http:// or https://');
  });
});

describe.concurrent('elenchos verify --verifier-only (built CLI)', () => {
  it('prints steps, a criteria table and the verdict; exit 0 on PASS', async () => {
    const cwd = repo('pass');
    const evidence = tempDir();
    const run = await cli(['verify', 'tasks/add-task.json', '--verifier-only', '--url', okUrl, '--evidence', evidence], cwd);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/✓ step 1 check 1\b/); // the step number once (Kane says "Step 1 — check 1")
    expect(run.stdout).toMatch(/AC-001 {2}PASS {8}step 1 {6}criterion 1/);
    expect(run.stdout).toContain('PASS: Kane passed all 2 step(s)');
    expect(run.stdout).toContain(`evidence: ${evidence}`);
  });

  it('--json prints the result; exit 1 on a product FAIL', async () => {
    const run = await cli(
      ['verify', 'tasks/add-task.json', '--verifier-only', '--url', okUrl, '--json', '--evidence', tempDir()],
      repo('product-fail:2'),
    );
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout);
    expect(result.status).toBe('FAIL');
    expect(result.criteria.map((c: { status: string }) => c.status)).toEqual(['PASS', 'FAIL']);
    expect(result.details.argv[0]).toBe('testmd');
  });

  it('exit 2 on a verifier error and on an inconclusive stream', async () => {
    expect(
      (await cli(['verify', 'tasks/add-task.json', '--verifier-only', '--url', okUrl, '--evidence', tempDir()], repo('no-credentials')))
        .code,
    ).toBe(2);
    expect(
      (await cli(['verify', 'tasks/add-task.json', '--verifier-only', '--url', okUrl, '--evidence', tempDir()], repo('truncated'))).code,
    ).toBe(2);
  });

  it('without --verifier-only runs the full mode, which needs app.command; --verifier-only needs --url (exit 3 both)', async () => {
    const cwd = repo('pass');
    const full = await cli(['verify', 'tasks/add-task.json'], cwd);
    expect(full.code).toBe(3);
    expect(full.stdout).toContain('REFUSED   tasks/add-task.json: elenchos.config.json: app.command is not set');
    const noUrl = await cli(['verify', 'tasks/add-task.json', '--verifier-only'], cwd);
    expect(noUrl.code).toBe(3);
    expect(noUrl.stderr).toContain('needs --url');
  });
});
