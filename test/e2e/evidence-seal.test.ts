// Forged evidence, the attacks written as the agent would: a repair agent rewrites
// attempt 1's agent.log before the run ends; an agent reads the signing key from its parents'
// /proc/<pid>/environ. Each assertion marked "on main" did not hold on the build before this change.
// @module-tag slow
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONCURRENT_TIMEOUT } from '../helpers/leftovers.js';
import { writeManifest } from '../../src/evidence/manifest.js';
import { runMain, spawnCli } from '../helpers/cli.js';
import { FIXTURES, makeProject, onlyRun } from '../helpers/project.js';
import { tempDir } from '../helpers/temp.js';

const FORGER = path.join(FIXTURES, 'agents/forger-agent.js');
const KEY = 'e2e-signing-key-0123456789abcdef';

// The agent is committed into the project: inside the sandbox /tmp is a private tmpfs, which hides a clone under /tmp.
function forger(args: string[], agent: Record<string, unknown> = {}) {
  return makeProject({
    files: { 'forger-agent.js': readFileSync(FORGER, 'utf8') },
    config: { agent: { type: 'command', command: process.execPath, args: ['forger-agent.js', ...args], timeoutSeconds: 30, ...agent } },
  });
}

function keyFile(key = KEY): string {
  const file = path.join(tempDir('elenchos-key-'), 'signing.key');
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return file;
}

describe.concurrent('each attempt sealed when it ends', { timeout: CONCURRENT_TIMEOUT }, () => {
  it("a repair agent that rewrites attempt 1's agent.log: evidence verify names the attempt and the file", async () => {
    const p = forger(['rewrite-log']);
    const file = keyFile();
    const env = { ...p.env, ELENCHOS_SIGNING_KEY_FILE: file };
    const run = await runMain(['run', 'tasks/add-task.json'], p.root, env);
    expect(run.code, run.stdout + run.stderr).toBe(0); // the repair did fix the page
    expect(run.stdout).toContain('forger attempt 2: fixed, and rewrote');
    const { dir } = onlyRun(p.root);
    // The rewrite happened: attempt 1's log now hides what the agent said.
    expect(readFileSync(path.join(dir, 'attempts/01/agent.log'), 'utf8')).toContain('implemented the page carefully');
    // Sealed when attempt 1 ended, signed with the key from the file.
    const attemptManifest = JSON.parse(readFileSync(path.join(dir, 'attempts/01/manifest.json'), 'utf8')) as Record<string, unknown>;
    expect(attemptManifest).toMatchObject({ files: { 'agent.log': expect.any(Object) }, hmac: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(run.stdout).toMatch(
      /warning: evidence sealed when its attempt ended was changed since .*attempt 1: modified: attempts\/01\/agent\.log/,
    );

    const check = await runMain(['evidence', 'verify', 'latest'], p.root, env);
    expect(check.code, check.stdout + check.stderr).toBe(1); // on main: 0, "evidence intact"
    expect(check.stdout).toContain('attempt 1: modified: attempts/01/agent.log');
    expect(check.stdout).not.toContain('attempts/02');
    // Without the key, the hashes alone still say it.
    expect((await runMain(['evidence', 'verify', 'latest'], p.root, p.env)).stdout).toContain('attempt 1: modified: attempts/01/agent.log');
    // apply checks the same manifest: the change is not taken.
    expect((await runMain(['apply', 'latest'], p.root, env)).code).not.toBe(0);
  });

  it('an untouched run with two attempts verifies intact, each attempt with its own signed manifest', async () => {
    const p = makeProject({ agent: 'buggy-then-fix' });
    const file = keyFile();
    const run = await runMain(['run', 'tasks/add-task.json', '--signing-key-file', file], p.root, p.env);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).not.toContain('warning: evidence sealed');
    expect(await runMain(['evidence', 'verify', '--signing-key-file', file], p.root, p.env)).toMatchObject({ code: 0 });
    // Another key: every signature is refused, the run's and each attempt's.
    const other = await runMain(['evidence', 'verify'], p.root, { ...p.env, ELENCHOS_SIGNING_KEY_FILE: keyFile('another-key-0000000000') });
    expect(other.code).toBe(1);
    expect(other.stdout).toContain('signature invalid');
    expect(other.stdout).toContain('attempt 1: signature invalid');
    expect(other.stdout).toContain('attempt 2: signature invalid');
  });
});

describe.concurrent('apply checks what evidence verify checks', { timeout: CONCURRENT_TIMEOUT }, () => {
  it("an attempt file changed and the run's manifest re-written to match: evidence verify and apply both refuse", async () => {
    const p = makeProject();
    const run = await runMain(['run', 'tasks/add-task.json'], p.root, p.env);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const { dir } = onlyRun(p.root);
    appendFileSync(path.join(dir, 'attempts/01/agent.log'), 'all criteria checked by hand\n');
    await writeManifest(dir); // unsigned: the run's manifest now agrees with the disk, attempt 1's does not
    const check = await runMain(['evidence', 'verify', 'latest'], p.root, p.env);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('attempt 1: modified: attempts/01/agent.log');
    const apply = await runMain(['apply', 'latest'], p.root, p.env);
    expect(apply.code, apply.stdout + apply.stderr).toBe(3); // before: 0, it read only the run's manifest
    expect(apply.stderr).toContain('its evidence does not match its manifest');
  });
});

describe.concurrent('the signing key out of the environment', { timeout: CONCURRENT_TIMEOUT }, () => {
  it("an agent reading its parents' /proc/<pid>/environ finds the key when it is in the environment, and none with a key file", async () => {
    const outside = tempDir('elenchos-environ-');
    const inEnv = path.join(outside, 'env.json');
    const p = forger(['read-environ', inEnv]);
    // Spawned: the point is what a process's /proc/<pid>/environ shows its children.
    const run = await spawnCli(['run', 'tasks/add-task.json'], p.root, { ...p.env, ELENCHOS_SIGNING_KEY: KEY });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // The hole, said plainly in the run's header.
    expect(run.stdout).toContain("warning: the evidence signing key (ELENCHOS_SIGNING_KEY) is readable by the agent's code");
    expect(Object.values(JSON.parse(readFileSync(inEnv, 'utf8')) as Record<string, string>)).toContain(KEY);

    const withFile = path.join(outside, 'file.json');
    const q = forger(['read-environ', withFile]);
    const file = keyFile();
    const second = await spawnCli(['--signing-key-file', file, 'run', 'tasks/add-task.json'], q.root, q.env);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).not.toContain('(ELENCHOS_SIGNING_KEY) is readable');
    expect(second.stdout).toContain('signing key file'); // still readable without a sandbox: said too
    const found = JSON.parse(readFileSync(withFile, 'utf8')) as Record<string, string>;
    expect(Object.values(found)).not.toContain(KEY);
    // The evidence is signed with the file's key, and the key reached no stored file.
    const { dir } = onlyRun(q.root);
    expect(JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'))).toMatchObject({ hmac: expect.any(String) });
    expect((await runMain(['evidence', 'verify'], q.root, { ...q.env, ELENCHOS_SIGNING_KEY_FILE: file })).code).toBe(0);
    expect((await runMain(['evidence', 'verify'], q.root, { ...q.env, ELENCHOS_SIGNING_KEY: 'not-the-key-000000' })).code).toBe(1);
  });

  // Under /var/tmp: inside the sandbox /tmp is a private tmpfs, which would hide anything there anyway.
  it.skipIf(!existsSync('/usr/bin/bwrap'))(
    'with agent.sandbox "bwrap" the agent reads neither the key file nor the cache key',
    async () => {
      const base = mkdtempSync('/var/tmp/elenchos-keys-');
      try {
        const file = path.join(base, 'config/signing.key');
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, `${KEY}\n`, { mode: 0o600 });
        const cacheKey = path.join(base, 'state/elenchos/cache.key');
        mkdirSync(path.dirname(cacheKey), { recursive: true, mode: 0o700 });
        writeFileSync(cacheKey, `${'ab'.repeat(32)}\n`, { mode: 0o600 });
        const seen = async (sandbox: 'none' | 'bwrap') => {
          const p = forger(['read-keys'], { sandbox, env: { FORGER_KEY_FILE: file, FORGER_CACHE_KEY: cacheKey } });
          // Spawned: the sandbox's own processes, and what they can read of Elenchos's.
          const run = await spawnCli(['run', 'tasks/add-task.json', '--signing-key-file', file], p.root, {
            ...p.env,
            XDG_STATE_HOME: path.join(base, 'state'),
          });
          const line = /\[agent\] KEYS (\{.*\})/.exec(run.stdout)?.[1];
          expect(line, run.stdout + run.stderr).toBeDefined();
          return { run, keys: JSON.parse(line!) as Record<string, boolean> };
        };
        const open = await seen('none');
        expect(open.keys).toEqual({ signingKeyFile: true, cacheKey: true }); // same user, no sandbox: what the warning says
        expect(open.run.stdout).toContain('signing key file');
        const hidden = await seen('bwrap');
        expect(hidden.run.code, hidden.run.stdout + hidden.run.stderr).toBe(0);
        expect(hidden.keys).toEqual({ signingKeyFile: false, cacheKey: false }); // on main: both true
        expect(hidden.run.stdout).not.toContain('warning: the evidence signing key');
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    },
    180_000,
  );

  it("doctor says when the key is readable by the agent's code, and not with a key file and the sandbox", async () => {
    const p = makeProject();
    const inEnv = await runMain(['doctor', '--no-app'], p.root, { ...p.env, ELENCHOS_SIGNING_KEY: KEY });
    expect(inEnv.stdout).toMatch(/! signing key +the evidence signing key \(ELENCHOS_SIGNING_KEY\) is readable by the agent's code/);
    const q = makeProject({ config: { agent: { type: 'command', command: process.execPath, args: [FORGER], sandbox: 'bwrap' } } });
    const withFile = await runMain(['doctor', '--no-app', '--signing-key-file', keyFile()], q.root, q.env);
    expect(withFile.stdout + withFile.stderr).not.toContain('signing key');
  });

  it('refuses a key file others can read, an empty one, or a file and ELENCHOS_SIGNING_KEY both: one line, exit 3', async () => {
    const p = makeProject();
    const open = keyFile();
    chmodSync(open, 0o644);
    const loose = await runMain(['evidence', 'verify', '--signing-key-file', open], p.root, p.env);
    expect(loose.code).toBe(3);
    expect(loose.stderr.trim()).toBe(`elenchos: --signing-key-file: ${open} can be read by other users (mode 644); run chmod 600 ${open}`);
    const empty = keyFile('');
    expect((await runMain(['evidence', 'verify'], p.root, { ...p.env, ELENCHOS_SIGNING_KEY_FILE: empty })).stderr).toContain('is empty');
    const both = await runMain(['runs'], p.root, { ...p.env, ELENCHOS_SIGNING_KEY_FILE: keyFile(), ELENCHOS_SIGNING_KEY: KEY });
    expect(both.code).toBe(3);
    expect(both.stderr).toContain('are both set');
  });
});
