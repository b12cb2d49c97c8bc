// The library entry behaves like the CLI: everything a run reads from the environment (the signing key, the
// setup cache key, the secrets to hide, git's identity) comes from the `env` it is given, never from this
// process's own. process.env holds a decoy of each here. Before, the setup cache entry was signed with the
// decoy's key (made in the decoy's state folder) while redaction and the sandbox used the given one's, and
// `applyRun` committed with the decoy's identity.
// @module-tag slow
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTask, applyRun, verifyManifest } from '../../src/index.js';
import type { RunEvent } from '../../src/core/events.js';
import { readCacheManifest } from '../../src/core/workspace/setup-cache-store.js';
import { setupCacheDir } from '../../src/evidence/layout.js';
import { cacheKeyPath } from '../../src/util/secret-paths.js';
import { FAKE_AGENT, makeProject } from '../helpers/project.js';
import { gitSync, tempDir } from '../helpers/temp.js';

const GIVEN = {
  signingKey: 'given-signing-key-0123456789abcdef',
  token: 'given-deploy-token-7f3a9c2e51',
  author: 'Library Caller',
};
const DECOY = {
  signingKey: 'decoy-signing-key-fedcba9876543210',
  token: 'decoy-deploy-token-0b8d4e6f13',
  author: 'Decoy Author',
};

const DECOY_STATE = tempDir('elenchos-decoy-state-');
const saved: Record<string, string | undefined> = {};
const decoys: Record<string, string> = {
  XDG_STATE_HOME: DECOY_STATE,
  ELENCHOS_SIGNING_KEY: DECOY.signingKey,
  DEPLOY_TOKEN: DECOY.token,
  GIT_AUTHOR_NAME: DECOY.author,
  GIT_AUTHOR_EMAIL: 'decoy@example.com',
  GIT_COMMITTER_NAME: DECOY.author,
  GIT_COMMITTER_EMAIL: 'decoy@example.com',
};
beforeAll(() => {
  for (const [name, value] of Object.entries(decoys)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
});
afterAll(() => {
  for (const name of Object.keys(decoys)) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

/** Every regular file under `dir` with its bytes. */
function storedFiles(dir: string): { file: string; bytes: Buffer }[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(file).isFile())
    .map((file) => ({ file, bytes: readFileSync(file) }));
}

describe('runTask and applyRun with an env that is not process.env', () => {
  it('sign with the given keys, hide and redact the given secret', async () => {
    const p = makeProject({
      config: {
        agent: {
          type: 'command',
          command: process.execPath,
          args: [FAKE_AGENT, 'leak-secrets'],
          timeoutSeconds: 30,
          passEnv: ['DEPLOY_TOKEN'],
        },
        setup: {
          command: `${process.execPath} -e "require('fs').mkdirSync('node_modules/x',{recursive:true});require('fs').writeFileSync('node_modules/x/index.js','1')"`,
          cache: { key: ['package-lock.json'], paths: ['node_modules'] },
        },
      },
      files: { 'package-lock.json': '{}\n', '.gitignore': 'node_modules/\n' },
    });
    const stateA = tempDir('elenchos-given-state-');
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: p.home,
      XDG_STATE_HOME: stateA,
      ELENCHOS_SIGNING_KEY: GIVEN.signingKey,
      DEPLOY_TOKEN: GIVEN.token,
      GIT_AUTHOR_NAME: GIVEN.author,
      GIT_AUTHOR_EMAIL: 'caller@example.com',
      GIT_COMMITTER_NAME: GIVEN.author,
      GIT_COMMITTER_EMAIL: 'caller@example.com',
    };
    const events: RunEvent[] = [];
    const result = await runTask({
      cwd: p.root,
      taskFile: 'tasks/add-task.json',
      env,
      signal: new AbortController().signal,
      reporter: { onEvent: (event) => events.push(event) },
    });
    expect(result.record.state, JSON.stringify(result.record)).toBe('VERIFIED');

    // The evidence is signed with the given key, not the decoy's.
    expect((await verifyManifest(result.runDir, { signingKey: GIVEN.signingKey })).ok).toBe(true);
    expect((await verifyManifest(result.runDir, { signingKey: DECOY.signingKey })).ok).toBe(false);

    // The setup cache entry is signed with the key in the given state folder; none was made in the decoy's.
    const cacheDir = setupCacheDir(p.root);
    const [entry] = readdirSync(cacheDir).filter((name) => /^[0-9a-f]{64}$/.test(name));
    expect(entry).toBeDefined();
    expect(existsSync(cacheKeyPath(env))).toBe(true);
    expect(existsSync(cacheKeyPath({ XDG_STATE_HOME: DECOY_STATE }))).toBe(false);
    expect((await readCacheManifest(cacheDir, entry!, cacheKeyPath(env))).ok).toBe(true);

    // The agent got the given token (passEnv) and printed it: redacted everywhere, as is the cache key.
    const cacheKey = readFileSync(cacheKeyPath(env), 'utf8').trim();
    const printed = JSON.stringify(events);
    expect(printed).toContain('deploy token [REDACTED]');
    for (const secret of [GIVEN.token, GIVEN.signingKey, cacheKey]) {
      expect(printed, secret).not.toContain(secret);
      for (const { file, bytes } of storedFiles(result.runDir)) expect(bytes.includes(secret), `${secret} in ${file}`).toBe(false);
    }
  }, 120_000);

  it('apply --commit through applyRun commits as the env’s author', async () => {
    const p = makeProject();
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: p.home,
      XDG_STATE_HOME: tempDir('elenchos-given-state-'),
      GIT_AUTHOR_NAME: GIVEN.author,
      GIT_AUTHOR_EMAIL: 'caller@example.com',
      GIT_COMMITTER_NAME: GIVEN.author,
      GIT_COMMITTER_EMAIL: 'caller@example.com',
    };
    const signal = new AbortController().signal;
    const result = await runTask({ cwd: p.root, taskFile: 'tasks/add-task.json', env, signal, reporter: { onEvent: () => undefined } });
    expect(result.record.state).toBe('VERIFIED');
    const applied = await applyRun({ cwd: p.root, env, runId: result.record.runId, commit: true });
    expect(applied.into).toBe('checkout');
    expect(gitSync(p.root, 'log', '-1', '--format=%an|%cn')).toBe(`${GIVEN.author}|${GIVEN.author}\n`);
  }, 120_000);
});
