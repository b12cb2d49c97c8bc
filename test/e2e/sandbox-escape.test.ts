// The sandbox holds whoever starts Elenchos (docs/security.md#the-agent-sandbox). Started by root, bubblewrap
// used to keep every capability inside: an agent unmounted what hides the checkout, remounted the object
// store writable, wrote the checkout and $HOME/.bashrc, read the signing key file and replaced the base
// commit's page blob, so that `verify --fresh` of the unchanged commit went FAILED → VERIFIED; the app under
// `verify --attest` unmounted /proc and read the attestation key from Elenchos's environment beneath. Each
// attack here runs as root and as an ordinary user (setpriv), in a repository and HOME outside /tmp (the
// sandbox's own /tmp would hide them whatever else held).
// @module-tag slow
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { gitRead, giveTo, spawnCliAs, WHO, type Who } from '../helpers/as-user.js';
import { leftoversOf } from '../helpers/leftovers.js';
import { checkoutFingerprint, FIXTURES, GIT_IDENTITY, makeProject } from '../helpers/project.js';
import { gitSync, tempDir } from '../helpers/temp.js';

const OUTSIDE_TMP = '/var/tmp';
const ORIGINAL = '<h1>Tasks</h1>\n';
const FINISHED = '<h1>Tasks</h1><form>New task</form><ul><li>Buy milk</li></ul>\n';
const SECRET = { PROBE_SECRET_TOKEN: 'caller-secret-token-value' };

/**
 * A project under /var/tmp whose agent or app is a fixture committed into it; `probe` gives that one's env
 * (what it aims at). `ctx`'s case checks it for leftover processes when it ends.
 */
function project(
  ctx: TestContext,
  who: Who,
  target: 'agent' | 'app',
  config: Record<string, unknown>,
  files: Record<string, string>,
  probe: (root: string, home: string, keys: string) => Record<string, string>,
) {
  const p = makeProject({ parent: OUTSIDE_TMP, config, files });
  leftoversOf(ctx)(p.root);
  const keys = tempDir('elenchos-keys-', OUTSIDE_TMP);
  const file = path.join(p.root, 'elenchos.config.json');
  const settings = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;
  settings[target]!.env = probe(p.root, p.home, keys);
  writeFileSync(file, JSON.stringify(settings));
  gitSync(p.root, 'commit', '-qam', `escape as ${who}`);
  writeFileSync(path.join(p.home, '.bashrc'), 'echo original\n');
  giveTo(who, p.root, p.home, keys);
  return { ...p, keys, env: { ...p.env, ...GIT_IDENTITY, ...SECRET } };
}

/** A key file, 0600 and owned by `who`. */
function keyFile(who: Who, file: string, content: string): string {
  writeFileSync(file, content, { mode: 0o600 });
  giveTo(who, file);
  return file;
}

const refused = (outcome: unknown) => outcome !== 'ok';

describe.skipIf(!existsSync('/usr/bin/bwrap'))('the sandbox holds whoever starts Elenchos', { timeout: 240_000, concurrent: true }, () => {
  describe.each(WHO)('as %s', (who) => {
    it('the agent cannot unmount, remount or escape through a nested namespace: the checkout, $HOME, the key file and the base blob stay untouched, and verify --fresh stays FAILED', async (ctx) => {
      const p = project(
        ctx,
        who,
        'agent',
        {
          agent: { type: 'command', command: process.execPath, args: ['agent.js'], timeoutSeconds: 60, sandbox: 'bwrap' },
          maxRepairAttempts: 0,
        },
        { 'agent.js': readFileSync(path.join(FIXTURES, 'agents/escape-agent.js'), 'utf8') },
        // What it aims at, as an agent could guess: the checkout (its worktree's parent), HOME, the key file's path.
        (root, home, keys) => ({ PROBE_CHECKOUT: root, PROBE_HOME: home, PROBE_KEY_FILE: path.join(keys, 'signing.key') }),
      );
      const signing = keyFile(who, path.join(p.keys, 'signing.key'), 'signing-key-secret-value-0123\n');
      const blob = gitRead(p.root, 'rev-parse', 'HEAD:page.html').trim();
      const before = checkoutFingerprint(p.root);

      const run = await spawnCliAs(who, ['run', 'tasks/add-task.json', '--signing-key-file', signing], p.root, p.env);
      const line = /\[agent\] ESCAPE (\{.*\})/.exec(run.stdout)?.[1];
      expect(line, run.stdout + run.stderr).toBeDefined();
      const escape = JSON.parse(line!) as Record<string, any>;
      // Before (root, bwrap with every capability): each of these was "ok".
      for (const [what, outcome] of Object.entries(escape.mounts)) expect(outcome, what).not.toBe('ok');
      if (escape.nested.python !== 'missing') {
        // A nested user namespace is allowed (nested sandboxes need one), but what it inherited is locked.
        for (const what of ['umountCheckout', 'umountTmp', 'umountProc', 'remountObjects'])
          expect(escape.nested[what] ?? 'not reached', what).not.toBe('ok');
        expect(escape.nested.sawCheckout ?? false).toBe(false);
      }
      expect(escape).toMatchObject({ sawCheckout: 'empty', environLeak: false });
      // The key file is /dev/null in the sandbox, which bubblewrap binds unopenable (EACCES): not read either way.
      for (const what of ['writeCheckout', 'writeBashrc', 'readSigningKey', 'forgeBlob'])
        expect(refused(escape[what]), `${what}: ${escape[what]}`).toBe(true);
      expect(run.code, run.stdout + run.stderr).toBe(0); // the agent did the task after all

      expect(checkoutFingerprint(p.root)).toEqual(before);
      expect(readFileSync(path.join(p.home, '.bashrc'), 'utf8')).toBe('echo original\n');
      expect(gitRead(p.root, 'cat-file', 'blob', blob)).toBe(ORIGINAL);
      // Before: VERIFIED, the fresh worktree of the unchanged commit checked out the finished page from the forged blob.
      const fresh = await spawnCliAs(who, ['verify', '--fresh', 'tasks/add-task.json'], p.root, p.env);
      expect(fresh.code, fresh.stdout + fresh.stderr).toBe(1);
      expect(fresh.stdout).toContain('FAILED');
    });

    it('the app under verify --attest cannot unmount /proc to reach the attestation key, which no child of Elenchos holds either', async (ctx) => {
      const { privateKey } = generateKeyPairSync('ed25519');
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const p = project(
        ctx,
        who,
        'app',
        {
          agent: { type: 'command', command: '/bin/true', timeoutSeconds: 30, sandbox: 'bwrap' },
          app: { command: 'node app.js --port {port}', readyTimeoutSeconds: 20 },
          // An install script is the commit's code too: it reports whether its environment holds the key.
          setup: { command: 'node install.js' },
          maxRepairAttempts: 0,
        },
        {
          'app.js': readFileSync(path.join(FIXTURES, 'apps/proc-escape-app.js'), 'utf8'),
          'install.js': "console.log(`SETUP ${JSON.stringify({ attestKeyInEnv: 'ELENCHOS_ATTEST_KEY' in process.env })}`);\n",
          'page.html': FINISHED,
        },
        (_root, _home, keys) => ({ PROBE_ATTEST_FILE: path.join(keys, 'elenchos-attest.key') }),
      );
      const attestFile = keyFile(who, path.join(p.keys, 'elenchos-attest.key'), pem);
      const verify = async (...flags: string[]) => {
        const seen = new Set(existsSync(path.join(p.root, '.elenchos/runs')) ? readdirSync(path.join(p.root, '.elenchos/runs')) : []);
        const out = path.join(p.keys, `att-${seen.size}.json`);
        const run = await spawnCliAs(who, ['verify', 'tasks/add-task.json', '--json', '--attest', out, ...flags], p.root, {
          ...p.env,
          ELENCHOS_ATTEST_KEY: pem,
        });
        const id = readdirSync(path.join(p.root, '.elenchos/runs')).find((name) => !seen.has(name));
        expect(id, run.stdout + run.stderr).toBeDefined();
        const attempt = path.join(p.root, '.elenchos/runs', id!, 'attempts/01');
        const probe = /PROBE (\{.*\})/.exec(readFileSync(path.join(attempt, 'app.log'), 'utf8'))?.[1];
        const setup = /SETUP (\{.*\})/.exec(readFileSync(path.join(attempt, 'setup.log'), 'utf8'))?.[1];
        expect(probe, run.stdout + run.stderr).toBeDefined();
        return { run, probe: JSON.parse(probe!) as Record<string, unknown>, setup: JSON.parse(setup ?? 'null') as Record<string, unknown> };
      };
      const byEnv = await verify('--attest-key', 'env:ELENCHOS_ATTEST_KEY');
      expect(byEnv.run.code, byEnv.run.stdout + byEnv.run.stderr).toBe(0);
      expect(byEnv.probe.umountProc).not.toBe('ok');
      expect(byEnv.probe.nestedUmountProc).not.toBe('ok');
      // Before: true (root unmounted /proc and read Elenchos's own /proc/<pid>/environ beneath).
      expect(byEnv.probe).toMatchObject({ attestKeyInProc: false, secretInProc: false, attestKeyInOwnEnv: false });
      // Before: true for every verify --attest-key env:…, sandbox or not (setup inherited Elenchos's environment).
      expect(byEnv.setup).toEqual({ attestKeyInEnv: false });

      const byFile = await verify('--attest-key', attestFile);
      expect(byFile.run.code, byFile.run.stdout + byFile.run.stderr).toBe(0);
      // Before: "ok" (the file was readable through the read-only root, as root or as its owner): now /dev/null is over it.
      expect(byFile.probe).toMatchObject({ attestKeyInProc: false, attestKeyInOwnEnv: false });
      expect(byFile.probe.readAttestFile).not.toBe('ok');
    });
  });
});
