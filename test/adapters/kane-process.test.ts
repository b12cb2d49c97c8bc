// How kane-cli is started and stopped: argv, variables, environment, stdin, credentials, group kill.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kaneAdapter } from '../../src/verifiers/kane/adapter.js';
import { kaneVersion, sameKaneVersion } from '../../src/verifiers/kane/kane-version.js';
import { tempDir } from '../helpers/temp.js';
import { FAKE_BIN, kaneFixture, simpleTest } from './kane-harness.js';

/** True while `pid` runs. A zombie is dead: killed children are reparented to PID 1, which may reap late. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

describe('kane adapter process handling', () => {
  it('passes the test path, --agent --headless, start_url and task variables; closes stdin; builds the env', async () => {
    const fixture = kaneFixture({
      text: simpleTest(1),
      url: 'http://127.0.0.1:4321/',
      variables: { plain: 'x', hidden: { value: 's3cret-value', secret: true }, start_url: 'http://elsewhere/' },
      args: ['--bug-detection', 'continue'],
      baseEnv: {
        LANG: 'C.UTF-8',
        KANE_CLI_CDP_TIMEOUT_MS: '60000',
        NODE_EXTRA_CA_CERTS: '/ca.pem',
        AWS_SECRET_ACCESS_KEY: 'nope',
        LT_USERNAME: 'ann',
        LT_ACCESS_KEY: 'key-123',
      },
    });
    const argvFile = path.join(fixture.root, 'argv.json');
    fixture.ctx.env = { FAKE_KANE_ARGV_FILE: argvFile };
    const result = await kaneAdapter.verify(fixture.ctx);
    expect(result.status).toBe('PASS');
    const seen = JSON.parse(readFileSync(argvFile, 'utf8'));
    expect(seen.argv.slice(0, 5)).toEqual(['testmd', 'run', fixture.ctx.testFile, '--agent', '--headless']);
    expect(JSON.parse(seen.argv[seen.argv.indexOf('--variables') + 1])).toEqual({
      plain: { value: 'x', secret: false },
      hidden: { value: 's3cret-value', secret: true },
      start_url: { value: 'http://127.0.0.1:4321/', secret: false },
    });
    expect(seen.argv.slice(-6)).toEqual(['--username', 'ann', '--access-key', 'key-123', '--bug-detection', 'continue']);
    expect(seen.stdin).toMatchObject({ isTTY: false, eof: true });
    expect(seen.cwd).toBe(fixture.root);
    expect(seen.env).toEqual({ HOME: fixture.home, LANG: 'C.UTF-8', KANE_CLI_CDP_TIMEOUT_MS: '60000', NODE_EXTRA_CA_CERTS: '/ca.pem' });
    expect(seen.envKeys).not.toContain('AWS_SECRET_ACCESS_KEY');
    expect(seen.envKeys).not.toContain('LT_ACCESS_KEY');
    // The record never shows the access key or secret values.
    const argv = result.details.argv as string[];
    expect(argv[argv.indexOf('--access-key') + 1]).toBe('***');
    expect(JSON.stringify(argv)).not.toContain('s3cret-value');
    expect(JSON.stringify(argv)).not.toContain('key-123');
  });

  it('passes no credentials unless both LT_USERNAME and LT_ACCESS_KEY are set', async () => {
    const fixture = kaneFixture({ text: simpleTest(1), baseEnv: { LT_USERNAME: 'ann' } });
    const argvFile = path.join(fixture.root, 'argv.json');
    fixture.ctx.env = { FAKE_KANE_ARGV_FILE: argvFile };
    await kaneAdapter.verify(fixture.ctx);
    expect(JSON.parse(readFileSync(argvFile, 'utf8')).argv).not.toContain('--username');
  });

  it('hang: our own timeout kills the whole group (the "Chrome" child too) and is a VERIFIER_ERROR', async () => {
    const fixture = kaneFixture({ text: simpleTest(2), timeoutMs: 1500 });
    const pidFile = path.join(fixture.root, 'chrome.pid');
    fixture.ctx.env = { FAKE_KANE_SCENARIO: 'hang', FAKE_KANE_PIDFILE: pidFile };
    const started = Date.now();
    const result = await kaneAdapter.verify(fixture.ctx);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result).toMatchObject({ status: 'VERIFIER_ERROR', timedOut: true });
    expect(result.summary).toContain("Elenchos's own timeout");
    expect(result.findings[0]).toMatchObject({ kind: 'verifier_error', step: 1 });
    expect(result.criteria.map((c) => c.status)).toEqual(['UNVERIFIED', 'UNVERIFIED']);
    expect(result.criteria[0]!.note).toBe('step 1 started but never finished');
    const chrome = Number(readFileSync(pidFile, 'utf8'));
    expect(chrome).toBeGreaterThan(0);
    expect(alive(chrome)).toBe(false);
  });

  it('an abort signal stops kane-cli and its group', async () => {
    const controller = new AbortController();
    const fixture = kaneFixture({ text: simpleTest(1), signal: controller.signal });
    const pidFile = path.join(fixture.root, 'chrome.pid');
    fixture.ctx.env = { FAKE_KANE_SCENARIO: 'hang', FAKE_KANE_PIDFILE: pidFile };
    fixture.ctx.onProgress = (p) => {
      // The fake has written its child's pid before it starts the step: abort on that marker, not after a time.
      if (p.kind === 'step-start') controller.abort();
    };
    const result = await kaneAdapter.verify(fixture.ctx);
    expect(result.status).toBe('VERIFIER_ERROR');
    expect(result.details.rule).toBe('aborted');
    expect(alive(Number(readFileSync(pidFile, 'utf8')))).toBe(false);
  });

  it('a missing executable is a VERIFIER_ERROR that says how to fix it', async () => {
    const fixture = kaneFixture({ text: simpleTest(1) });
    fixture.ctx.command = 'kane-cli-that-does-not-exist';
    const result = await kaneAdapter.verify(fixture.ctx);
    expect(result.status).toBe('VERIFIER_ERROR');
    expect(result.summary).toContain('ENOENT');
    expect(result.summary).toContain('verifier.command');
  });

  it('kaneVersion() asks kane-cli --version', async () => {
    expect(await kaneVersion(path.join(FAKE_BIN, 'kane-cli'), { cwd: FAKE_BIN, env: { PATH: process.env.PATH } })).toBe('0.8.17-beta.1');
    expect(await kaneVersion('kane-cli-that-does-not-exist', { cwd: FAKE_BIN, env: {} })).toBeNull();
  });

  it('sameKaneVersion() starts kane-cli once per executable file, and again once that file changed', async () => {
    const dir = tempDir('elenchos-kane-version-');
    const calls = path.join(dir, 'calls');
    const script = (version: string) => `#!/bin/sh\necho x >> ${calls}\necho "kane-cli ${version}"\n`;
    const bin = path.join(dir, 'kane-cli');
    writeFileSync(bin, script('1.2.3'), { mode: 0o755 });
    const ask = () => sameKaneVersion(bin, { cwd: dir, env: { PATH: process.env.PATH } });
    expect(await ask()).toBe('1.2.3');
    expect(await ask()).toBe('1.2.3');
    expect(readFileSync(calls, 'utf8')).toBe('x\n');
    writeFileSync(bin, script('1.2.40'), { mode: 0o755 }); // another size: another file
    expect(await ask()).toBe('1.2.40');
    expect(readFileSync(calls, 'utf8')).toBe('x\nx\n');
  });
});
