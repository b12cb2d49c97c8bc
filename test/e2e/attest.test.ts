// Signed verdicts end to end: `verify --attest` and `merge --attest` write a DSSE envelope that plain
// openssl verifies, and `attest verify` holds it only for its own commit, contracts, task set and a PASSED
// result. Each refusal is an attack on a check that main does not have: a tampered payload, another
// signer, another commit, a contract changed at the commit, a FAILED verdict, a task left out.
// @module-tag slow
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSigningKey } from '../../src/attest/keys.js';
import { preAuthEncoding, signEnvelope } from '../../src/attest/dsse.js';
import { runMain, type CliRun } from '../helpers/cli.js';
import { FORM_TASK, KANE_CHECK_PAGE, makeProject, processesInside } from '../helpers/project.js';
import { gitSync, tempDir } from '../helpers/temp.js';

const PASSING_PAGE = '<h1>Tasks</h1><form>New task</form><ul><li>Buy milk</li></ul>\n';
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

let project: ReturnType<typeof makeProject>;
let dir: string;
let keys: string;
let first: string; // the commit every task passes at
let verdict: string;
let attestation: string;
let verified: CliRun;

const attestVerify = async (file: string, ...more: string[]) =>
  await runMain(['attest', 'verify', file, '--key', path.join(keys, 'elenchos-attest.pub'), ...more], project.root, project.env);
const statementOf = (file: string) =>
  JSON.parse(Buffer.from((JSON.parse(readFileSync(file, 'utf8')) as { payload: string }).payload, 'base64').toString('utf8')) as {
    subject: { name: string; digest: Record<string, string> }[];
    predicate: {
      result: string;
      configuration: { name: string; digest: { sha256: string } }[];
      passedTests: string[];
      failedTests: string[];
      url?: string;
    };
  };

beforeAll(async () => {
  project = makeProject({
    config: { verifier: KANE_CHECK_PAGE },
    files: {
      'page.html': PASSING_PAGE,
      ...FORM_TASK,
    },
  });
  dir = tempDir('elenchos-attest-');
  keys = path.join(dir, 'keys');
  const made = await runMain(['attest', 'keygen', '--out', keys], project.root);
  expect(made.code, made.stderr).toBe(0);
  first = gitSync(project.root, 'rev-parse', 'HEAD').trim();
  verdict = path.join(dir, 'verdict.json');
  attestation = path.join(dir, 'verify.att.json');
  const env = { ...project.env, GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '42' };
  verified = await runMain(
    ['verify', '--json', '--attest', attestation, '--attest-key', path.join(keys, 'elenchos-attest.key')],
    project.root,
    env,
  );
  writeFileSync(verdict, verified.stdout);
}, 120_000);

afterAll(() => {
  expect(processesInside(project.root), 'processes left').toEqual([]);
});

describe('attest keygen', () => {
  it('writes a 0600 PKCS#8 private key and an SPKI public key, and never overwrites them', async () => {
    const key = path.join(keys, 'elenchos-attest.key');
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(readFileSync(key, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(readFileSync(path.join(keys, 'elenchos-attest.pub'), 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    const before = readFileSync(key, 'utf8');
    const again = await runMain(['attest', 'keygen', '--out', keys], project.root);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('already exists; keygen never replaces a key');
    expect(readFileSync(key, 'utf8')).toBe(before);
  });
});

describe('verify --attest', () => {
  it('writes an in-toto test-result statement about the commit and the verdict file', async () => {
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stderr).toContain(`attestation ${attestation}: PASSED for commit ${first}`);
    const envelope = JSON.parse(readFileSync(attestation, 'utf8')) as { payloadType: string; signatures: { keyid: string }[] };
    expect(envelope.payloadType).toBe('application/vnd.in-toto+json');
    const statement = statementOf(attestation);
    expect(statement.subject).toEqual([
      { name: 'git+commit', digest: { gitCommit: first } },
      { name: 'elenchos-verdict.json', digest: { sha256: sha256(readFileSync(verdict)) } },
    ]);
    expect(statement.predicate.result).toBe('PASSED');
    expect(statement.predicate.url).toBe('https://github.com/o/r/actions/runs/42');
    expect(statement.predicate.passedTests).toEqual(['tasks/add-task.json#AC-001', 'tasks/add-task.json#AC-002', 'tasks/form.json#AC-001']);
    expect(statement.predicate.failedTests).toEqual([]);
    const files = Object.fromEntries(statement.predicate.configuration.map((d) => [d.name, d.digest.sha256]));
    for (const name of ['elenchos.config.json', 'tasks/add-task.json', 'tests/add-task_test.md', 'tasks/form.json', 'tests/form_test.md'])
      expect(files[name], name).toBe(sha256(readFileSync(path.join(project.root, name))));
  });

  it('attest predicate prints the same predicate from the verdict file alone (for actions/attest)', async () => {
    const env = { ...project.env, GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '42' };
    const run = await runMain(['attest', 'predicate', verdict], project.root, env);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(statementOf(attestation).predicate);
  });

  it('verifies with plain openssl over the DSSE pre-authentication encoding', async () => {
    const envelope = JSON.parse(readFileSync(attestation, 'utf8')) as {
      payloadType: string;
      payload: string;
      signatures: { sig: string }[];
    };
    writeFileSync(path.join(dir, 'pae.bin'), preAuthEncoding(envelope.payloadType, Buffer.from(envelope.payload, 'base64')));
    writeFileSync(path.join(dir, 'sig.bin'), Buffer.from(envelope.signatures[0]!.sig, 'base64'));
    const openssl = (pae: string) =>
      spawnSync(
        'openssl',
        [
          'pkeyutl',
          '-verify',
          '-rawin',
          '-pubin',
          '-inkey',
          path.join(keys, 'elenchos-attest.pub'),
          '-sigfile',
          path.join(dir, 'sig.bin'),
          '-in',
          pae,
        ],
        {
          encoding: 'utf8',
        },
      );
    const good = openssl(path.join(dir, 'pae.bin'));
    expect(good.status, good.stderr).toBe(0);
    expect(good.stdout).toContain('Signature Verified Successfully');
    // The control: one byte of the signed text changed, and openssl refuses.
    const pae = readFileSync(path.join(dir, 'pae.bin'));
    pae[pae.length - 2] = pae[pae.length - 2]! ^ 1;
    writeFileSync(path.join(dir, 'pae-changed.bin'), pae);
    expect(openssl(path.join(dir, 'pae-changed.bin')).status).not.toBe(0);
  });

  it('verifies with the openssl recipe of docs/ci.md, run as written', async () => {
    const docs = readFileSync(new URL('../../docs/ci.md', import.meta.url), 'utf8');
    const recipe = /With plain openssl[^`]*```sh\n([\s\S]*?)```/.exec(docs)?.[1];
    expect(recipe).toContain('openssl pkeyutl -verify -rawin');
    const work = tempDir('elenchos-recipe-');
    writeFileSync(path.join(work, 'att.json'), readFileSync(attestation));
    writeFileSync(path.join(work, 'elenchos-attest.pub'), readFileSync(path.join(keys, 'elenchos-attest.pub')));
    const run = spawnSync('bash', ['-euo', 'pipefail', '-c', recipe!], { cwd: work, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('Signature Verified Successfully');
  });

  it('holds for its commit, its verdict file and its key', async () => {
    const held = await attestVerify(attestation, '--verdict', verdict);
    expect(held.code, held.stderr).toBe(0);
    expect(held.stdout).toContain(`attestation holds: PASSED for commit ${first}, 2 task(s)`);
    writeFileSync(path.join(dir, 'other-verdict.json'), verified.stdout.replace('"VERIFIED"', '"VERIFIED" '));
    const other = await attestVerify(attestation, '--verdict', path.join(dir, 'other-verdict.json'));
    expect(other.code).toBe(1);
    expect(other.stderr.trim()).toBe(
      `elenchos: attestation refused (verdict): ${path.join(dir, 'other-verdict.json')} is not the verdict document the attestation names (sha256 differs)`,
    );
  });

  it('refuses a changed payload', async () => {
    const envelope = JSON.parse(readFileSync(attestation, 'utf8')) as { payload: string };
    const statement = statementOf(attestation);
    statement.predicate.passedTests.push('tasks/extra.json#AC-001');
    envelope.payload = Buffer.from(JSON.stringify(statement)).toString('base64');
    const changed = path.join(dir, 'changed.att.json');
    writeFileSync(changed, JSON.stringify(envelope));
    const refused = await attestVerify(changed);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^elenchos: attestation refused \(signature\): no signature holds for .*elenchos-attest\.pub/);
  });

  it('refuses another key', async () => {
    const other = path.join(dir, 'other-keys');
    expect((await runMain(['attest', 'keygen', '--out', other], project.root)).code).toBe(0);
    const refused = await runMain(['attest', 'verify', attestation, '--key', path.join(other, 'elenchos-attest.pub')], project.root);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('attestation refused (signature)');
  });

  it("refuses an attestation of only some of the config's tasks", async () => {
    const partial = path.join(dir, 'partial.att.json');
    const run = await runMain(
      ['verify', 'tasks/form.json', '--json', '--attest', partial, '--attest-key', path.join(keys, 'elenchos-attest.key')],
      project.root,
      project.env,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(statementOf(partial).predicate.result).toBe('PASSED');
    const refused = await attestVerify(partial);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `elenchos: attestation refused (tasks): tasks/add-task.json is in the config's task set at ${first} but not verified`,
    );
  });
});

describe('an uncommitted config', () => {
  it('is attested as it was read, and refused at the commit', async () => {
    const config = path.join(project.root, 'elenchos.config.json');
    const committed = readFileSync(config, 'utf8');
    // The same settings, another file: verify reads the checkout's config, the commit has the other one.
    writeFileSync(config, `${committed}\n`);
    const dirty = path.join(dir, 'dirty.att.json');
    try {
      const run = await runMain(
        [
          'verify',
          'tasks/form.json',
          'tasks/add-task.json',
          '--json',
          '--attest',
          dirty,
          '--attest-key',
          path.join(keys, 'elenchos-attest.key'),
        ],
        project.root,
        project.env,
      );
      expect(run.code, run.stderr).toBe(0);
    } finally {
      writeFileSync(config, committed);
    }
    const refused = await attestVerify(dirty);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `elenchos: attestation refused (configuration): elenchos.config.json (config) at commit ${first} is not the file that was verified (sha256 differs)`,
    );
  });
});

describe('merge --attest', () => {
  it("attests the merged verdict of the shards, which holds like verify's", async () => {
    const merged = path.join(dir, 'merged.att.json');
    const run = await runMain(
      ['merge', verdict, '--json', '--attest', merged, '--attest-key', path.join(keys, 'elenchos-attest.key')],
      project.root,
    );
    expect(run.code, run.stderr).toBe(0);
    writeFileSync(path.join(dir, 'merged.json'), run.stdout);
    expect(statementOf(merged).subject[1]!.digest.sha256).toBe(sha256(run.stdout));
    const held = await attestVerify(merged, '--verdict', path.join(dir, 'merged.json'));
    expect(held.code, held.stderr).toBe(0);
  });
});

describe('on a later commit', () => {
  let second: string;
  let failed: string;
  let failing: CliRun;

  beforeAll(async () => {
    // The product breaks (the list no longer shows the task) in a new commit, verified and attested too.
    writeFileSync(path.join(project.root, 'page.html'), '<h1>Tasks</h1><form>New task</form><ul></ul>\n');
    gitSync(project.root, 'commit', '-qam', 'break the list');
    second = gitSync(project.root, 'rev-parse', 'HEAD').trim();
    failed = path.join(dir, 'failed.att.json');
    failing = await runMain(
      ['verify', '--json', '--attest', failed, '--attest-key', path.join(keys, 'elenchos-attest.key')],
      project.root,
      project.env,
    );
  }, 120_000);

  it("refuses the first commit's attestation for HEAD, and holds it with --commit", async () => {
    const refused = await attestVerify(attestation);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(`elenchos: attestation refused (commit): it is about commit ${first}, not ${second} (HEAD)`);
    expect((await attestVerify(attestation, '--commit', first)).code).toBe(0);
  });

  it('refuses a FAILED verdict', async () => {
    expect(failing.code, failing.stderr).toBe(1);
    const statement = statementOf(failed);
    expect(statement.predicate.result).toBe('FAILED');
    expect(statement.predicate.failedTests).toEqual(['tasks/add-task.json#AC-002', 'tasks/add-task.json#verdict']);
    const refused = await attestVerify(failed);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe('elenchos: attestation refused (result): the verdict is FAILED, not PASSED');
  });

  it('refuses a contract changed at the commit it names', async () => {
    // The first verdict re-signed for a commit where the test was weakened: the digests are the first commit's.
    writeFileSync(
      path.join(project.root, 'tests/add-task_test.md'),
      '## Step 1 @verifies AC-001\nVerify "New task".\n## Step 2 @verifies AC-002\nVerify "Tasks".\n',
    );
    gitSync(project.root, 'commit', '-qam', 'weaken the test');
    const third = gitSync(project.root, 'rev-parse', 'HEAD').trim();
    const statement = statementOf(attestation);
    statement.subject[0]!.digest.gitCommit = third;
    return readSigningKey(path.join(keys, 'elenchos-attest.key'), dir, {}).then(async (key) => {
      const relabelled = path.join(dir, 'relabelled.att.json');
      writeFileSync(relabelled, JSON.stringify(signEnvelope(Buffer.from(JSON.stringify(statement)), key)));
      const refused = await attestVerify(relabelled);
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim()).toBe(
        `elenchos: attestation refused (configuration): tests/add-task_test.md (test) at commit ${third} is not the file that was verified (sha256 differs)`,
      );
    });
  });
});

describe('bad input', () => {
  it('--attest-key sigstore with no OIDC identity in the environment is refused before anything runs (exit 3)', async () => {
    const env = { ACTIONS_ID_TOKEN_REQUEST_URL: '', ACTIONS_ID_TOKEN_REQUEST_TOKEN: '', SIGSTORE_ID_TOKEN: '' };
    const out = path.join(dir, 'keyless.json');
    const run = await runMain(['merge', verdict, '--json', '--attest', out, '--attest-key', 'sigstore'], project.root, env);
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'elenchos: --attest-key sigstore: no OIDC identity to sign with; on GitHub Actions give the job `permissions: id-token: write`, elsewhere set SIGSTORE_ID_TOKEN (docs/ci.md#keyless-attestations-sigstore)\n',
    );
    expect(existsSync(out)).toBe(false);
  });

  it('--attest without --json, or with an unreadable key, is refused before anything runs (exit 3)', async () => {
    const noJson = await runMain(
      ['merge', verdict, '--attest', path.join(dir, 'x.json'), '--attest-key', path.join(keys, 'elenchos-attest.key')],
      project.root,
    );
    expect(noJson.code).toBe(3);
    expect(noJson.stderr).toContain('add --json');
    const noKey = await runMain(
      ['merge', verdict, '--json', '--attest', path.join(dir, 'x.json'), '--attest-key', path.join(dir, 'none.key')],
      project.root,
    );
    expect(noKey.code).toBe(3);
    expect(noKey.stdout).toBe('');
    const publicKey = await runMain(
      ['merge', verdict, '--json', '--attest', path.join(dir, 'x.json'), '--attest-key', path.join(keys, 'elenchos-attest.pub')],
      project.root,
    );
    expect(publicKey.code).toBe(3);
    expect(publicKey.stderr).toContain('not a private key');
  });

  it('attest verify takes --key or both keyless flags, never a mix or half of them (exit 3)', async () => {
    const identity = 'https://github.com/o/r/.github/workflows/elenchos.yml@refs/heads/main';
    const mixed = await attestVerify(attestation, '--certificate-identity', identity);
    expect(mixed.code).toBe(3);
    expect(mixed.stderr).toBe(
      'elenchos: attest verify: --key checks a keyed attestation, --certificate-identity a keyless one; give one of them\n',
    );
    const half = await runMain(['attest', 'verify', attestation, '--certificate-identity', identity], project.root);
    expect(half.code).toBe(3);
    expect(half.stderr).toContain('both --certificate-identity <workflow> and --certificate-oidc-issuer <issuer>');
    const none = await runMain(['attest', 'verify', attestation], project.root);
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('needs --key <pub>');
  });

  it('a private key given to attest verify is refused, not used', async () => {
    const run = await runMain(['attest', 'verify', attestation, '--key', path.join(keys, 'elenchos-attest.key')], project.root);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('this is a private key');
  });
});
