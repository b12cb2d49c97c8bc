// Planted secrets: none reaches the terminal, any stored file (text, binary or archived), the app or
// the agent, unless the config names it. Each assertion failed on the build before this test.
// @module-tag slow
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { runMain, spawnCli } from '../helpers/cli.js';
import { FAKE_AGENT, FIXTURES, makeProject, onlyRun } from '../helpers/project.js';
import { encodedLeak, storedForms } from '../helpers/secret-leak.js';
import { tempDir } from '../helpers/temp.js';

// Values that match no known token format: only their variable names can give them away.
const CALLER = {
  GITHUB_TOKEN: 'caller-github-token-0001',
  OPENAI_API_KEY: 'caller-openai-key-0002',
  AWS_SECRET_ACCESS_KEY: 'caller-aws-secret-0003',
  DATABASE_PASSWORD: 'caller-db-password-0004',
};
const DEPLOY_TOKEN = 'config-deploy-token-0005';
const APP_SECRET = 'config-app-secret-0006';
const ALL = [...Object.values(CALLER), DEPLOY_TOKEN, APP_SECRET];

/** Every stored byte of a folder, gzip members unpacked too. */
function storedBytes(dir: string): { file: string; bytes: Buffer }[] {
  const out: { file: string; bytes: Buffer }[] = [];
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, name);
    if (!statSync(file).isFile()) continue;
    const bytes = readFileSync(file);
    out.push({ file, bytes });
    if (name.endsWith('.gz')) out.push({ file: `${file} (unpacked)`, bytes: gunzipSync(bytes) });
  }
  return out;
}

// Each run is a CLI process of its own: what its environment holds (and an app can read from
// /proc/<pid>/environ) is the point. The three runs go at once.
describe.concurrent('secrets', () => {
  it('keeps credentials from the app and the agent unless named, and out of the terminal and every stored file', async () => {
    const outside = tempDir('elenchos-leak-');
    const p = makeProject({
      config: {
        agent: {
          type: 'command',
          command: process.execPath,
          args: [FAKE_AGENT, 'leak-secrets'],
          timeoutSeconds: 30,
          env: { DEPLOY_TOKEN, LEAK_OUT: path.join(outside, 'agent-env.json') },
        },
        app: {
          command: 'node app.js --port {port}',
          readyTimeoutSeconds: 10,
          env: { APP_SECRET, TINY_APP_ENV_FILE: path.join(outside, 'app-env.json') },
          passEnv: ['DATABASE_PASSWORD'],
        },
      },
    });
    const run = await spawnCli(['run', 'tasks/add-task.json', '--verbose'], p.root, { ...p.env, ...CALLER });
    expect(run.code, run.stdout + run.stderr).toBe(0);

    // The terminal: the [agent] lines end up in CI logs.
    expect(run.stdout).toContain('[agent] fake-agent attempt 1: aws secret: not given; deploy token [REDACTED]');
    expect(run.stdout).toContain('[app] \\u0000app secret [REDACTED]'); // the NUL byte escaped, not printed
    for (const secret of ALL) expect(run.stdout + run.stderr, secret).not.toContain(secret);

    // The app got no credential the config does not name; the agent none at all.
    const appEnv = JSON.parse(readFileSync(path.join(outside, 'app-env.json'), 'utf8')) as Record<string, string>;
    for (const name of ['GITHUB_TOKEN', 'OPENAI_API_KEY', 'AWS_SECRET_ACCESS_KEY']) expect(appEnv[name], name).toBeUndefined();
    expect(appEnv.DATABASE_PASSWORD).toBe(CALLER.DATABASE_PASSWORD);
    expect(appEnv.APP_SECRET).toBe(APP_SECRET);
    const agentEnv = JSON.parse(readFileSync(path.join(outside, 'agent-env.json'), 'utf8')) as Record<string, string>;
    for (const name of Object.keys(CALLER)) expect(agentEnv[name], name).toBeUndefined();

    // Every stored file: agent.log and app.log that start with a NUL byte, the binary and text
    // untracked files inside untracked.tar.gz, the record itself.
    const { dir } = onlyRun(p.root);
    const stored = storedBytes(dir);
    expect(stored.some((f) => f.file.endsWith('untracked.tar.gz (unpacked)'))).toBe(true);
    for (const { file, bytes } of stored) {
      for (const secret of ALL) expect(bytes.includes(secret), `${secret} in ${path.relative(dir, file)}`).toBe(false);
    }
    const agentLog = stored.find((f) => f.file.endsWith('agent.log'))!.bytes;
    expect(agentLog[0]).toBe(0);
    expect(agentLog.toString()).toContain('deploy token [REDACTED]');
    const archive = stored.find((f) => f.file.endsWith('untracked.tar.gz (unpacked)'))!.bytes;
    expect(archive.includes('token=[REDACTED]')).toBe(true);
    expect(archive.includes('*'.repeat(DEPLOY_TOKEN.length))).toBe(true);
  }, 120_000);

  // Found in review: an app (the agent's code) that reads LT_ACCESS_KEY from Elenchos's environ and prints it
  // through `base64` (wrapped at 76 columns) or as a hex dump spread it over lines, past a line-by-line match.
  it('an app printing LT_ACCESS_KEY base64-wrapped and as hex dumps shows it neither in app.log nor on the terminal', async () => {
    const key = 'Kq8Zr3Wm5Tx7Vn2Pb9Lc4Hd6Fg1Js0YkQw3Er5Ty7Ui9Op2As4Df6Gh8';
    const p = makeProject({
      config: { app: { command: 'node app.js --port {port}', readyTimeoutSeconds: 10, env: { TINY_APP_MODE: 'print-key-encoded' } } },
    });
    const run = await spawnCli(['run', 'tasks/add-task.json', '--verbose'], p.root, {
      ...p.env,
      LT_USERNAME: 'kane-user',
      LT_ACCESS_KEY: key,
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // The app did print it, in every form (the [REDACTED] marks are where).
    for (const form of ['tiny-app: base64', 'tiny-app: od', 'tiny-app: xxd', 'tiny-app: hex'])
      expect(run.stdout).toContain(`[app] ${form}`);
    expect(run.stdout).toContain('[REDACTED]');
    expect(encodedLeak(run.stdout + run.stderr, key), 'the terminal').toBeNull();
    const { dir } = onlyRun(p.root);
    const appLog = readFileSync(path.join(dir, 'attempts/01/app.log'), 'latin1');
    expect(appLog).toContain('tiny-app: xxd');
    expect(encodedLeak(appLog, key), 'app.log').toBeNull();
    for (const { file, bytes } of storedBytes(dir)) expect(encodedLeak(bytes.toString('latin1'), key), path.relative(dir, file)).toBeNull();
  }, 120_000);

  // The last round's attack: a key given to the agent on purpose (ANTHROPIC_API_KEY through passEnv) came
  // back whole in agent.log as UTF-16LE, spelled with spaces (on the terminal too), and in two entry names of
  // untracked.tar.gz; reversed, base32, rot13 and %XX encodings got through as well. The agent here uses the
  // standard tools themselves (test/fixtures/agents/encoding-leaker.sh says which made what).
  it('a key the agent was given, printed and stored in every encoding one standard tool makes, is in no stored byte and not on the terminal', async () => {
    const key = 'sk-ant-api03-Zq8Wm5Tx7Vn2Pb9Lc4Hd6Fg1Js0YkQw3Er5';
    const p = makeProject({
      config: {
        agent: {
          type: 'command',
          command: '/bin/sh',
          args: [path.join(FIXTURES, 'agents/encoding-leaker.sh')],
          timeoutSeconds: 30,
          passEnv: ['ANTHROPIC_API_KEY'],
        },
      },
    });
    const run = await spawnCli(['run', 'tasks/add-task.json', '--verbose'], p.root, { ...p.env, ANTHROPIC_API_KEY: key });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // The agent did print and store it (the lines it wrote are there, with [REDACTED] where the key was).
    for (const said of ['spaced: [REDACTED]', '[agent] base32 lower, no padding:', '[agent] encoding-leaker: done'])
      expect(run.stdout).toContain(said);
    expect(encodedLeak(run.stdout + run.stderr, key), 'the terminal').toBeNull();

    const { dir } = onlyRun(p.root);
    const stored = storedForms(dir);
    const names = stored.find((f) => f.file.endsWith('(names and link targets)'))!.bytes.toString();
    const archive = stored.find((f) => f.file.endsWith('untracked.tar.gz (unpacked)'))!.bytes.toString('latin1');
    // The files are stored, under their names redacted; the staged UTF-16 file is a binary hunk of the patch.
    for (const entry of ['key-[REDACTED].txt', 'dir-[REDACTED]/inside.txt', 'utf16.txt', 'utf16be.bin', 'link-to-key'])
      expect(archive, entry).toContain(entry);
    expect(stored.some((f) => f.file.includes('diff.patch (binary hunk'))).toBe(true);
    expect(names).toContain('agent.log');
    for (const { file, bytes } of stored) {
      expect(encodedLeak(bytes.toString('latin1'), key), path.relative(dir, file)).toBeNull();
      expect(encodedLeak(bytes.toString('utf8'), key), path.relative(dir, file)).toBeNull();
    }

    // Restore gives the stored tree back as stored: the files under their redacted names, the staged UTF-16
    // file masked (its patch hunk names the masked blob, so git apply accepts it). Apply refuses: the
    // stored change is no longer the tree the verifier passed.
    const back = path.join(tempDir('elenchos-restored-'), 'tree');
    const restored = await runMain(['restore', 'latest', '--to', back], p.root, p.env);
    expect(restored.code, restored.stdout + restored.stderr).toBe(0);
    expect(readFileSync(path.join(back, 'key-[REDACTED].txt'), 'utf8')).toBe('x\n');
    expect(readFileSync(path.join(back, 'dir-[REDACTED]/inside.txt'), 'utf8')).toBe('inside\n');
    const staged = readFileSync(path.join(back, 'staged-utf16.txt'));
    expect(staged.length).toBe(2 + 2 * key.length);
    expect(staged.includes('*'.repeat(2 * key.length - 1))).toBe(true);
    const applied = await runMain(['apply', 'latest'], p.root, p.env);
    expect(applied.code, applied.stdout + applied.stderr).toBe(3);
    expect(applied.stderr).toMatch(/does not rebuild the tree the verifier passed/);
  }, 120_000);
});
