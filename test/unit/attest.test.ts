// The pieces of a signed verdict: DSSE's pre-authentication encoding (the spec's own example), a
// signature that holds only for its key and bytes, the task set read from a commit's tree exactly as
// `verify` selects it on disk, the CI run URL, and what a verdict document makes pass or fail.
import { generateKeyPairSync } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ciRunUrl } from '../../src/attest/ci-url.js';
import { selectTasksInTree } from '../../src/attest/commit-tasks.js';
import { openEnvelope, preAuthEncoding, signEnvelope } from '../../src/attest/dsse.js';
import { readVerdict } from '../../src/attest/verdict.js';
import { selectTasks } from '../../src/core/select-tasks.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

describe('DSSE', () => {
  it('encodes type and payload as the spec does (DSSEv1 <len> <type> <len> <payload>)', () => {
    expect(preAuthEncoding('http://example.com/HelloWorld', Buffer.from('hello world')).toString()).toBe(
      'DSSEv1 29 http://example.com/HelloWorld 11 hello world',
    );
    // Lengths are bytes, not characters.
    expect(preAuthEncoding('t', Buffer.from('é')).toString()).toBe('DSSEv1 1 t 2 é');
  });

  it('opens an envelope only with its own key and its own bytes, whatever its keyid says', () => {
    const signer = generateKeyPairSync('ed25519');
    const other = generateKeyPairSync('ed25519');
    const envelope = signEnvelope(Buffer.from('{"a":1}'), signer.privateKey);
    expect(openEnvelope(envelope, signer.publicKey)?.toString()).toBe('{"a":1}');
    expect(openEnvelope(envelope, other.publicKey)).toBeNull();
    expect(openEnvelope({ ...envelope, payload: Buffer.from('{"a":2}').toString('base64') }, signer.publicKey)).toBeNull();
    // The payload type is signed too: the same bytes under another type are another statement.
    expect(openEnvelope({ ...envelope, payloadType: 'text/plain' }, signer.publicKey)).toBeNull();
    // A forged signature carrying the right keyid is still no signature.
    const forged = signEnvelope(Buffer.from('{"a":2}'), other.privateKey);
    expect(
      openEnvelope({ ...forged, signatures: [{ keyid: envelope.signatures[0]!.keyid, sig: forged.signatures[0]!.sig }] }, signer.publicKey),
    ).toBeNull();
    expect(openEnvelope({ ...envelope, payload: `${envelope.payload}!` }, signer.publicKey)).toBeNull();
  });
});

describe('the task set of a commit', () => {
  it('is what verify selects on a checkout of it (ignored folders, locks, dot files, literal paths)', async () => {
    const files = [
      'tasks/a.json',
      'tasks/deep/b.json',
      'tasks/a.lock.json',
      'tasks/.hidden.json',
      'tasks/node_modules/c.json',
      'node_modules/tasks/d.json',
      '.elenchos/tasks/e.json',
      'more/f.task.json',
      'more/g.json',
      'tasks/readme.md',
    ];
    const root = tempDir();
    writeFiles(root, Object.fromEntries(files.map((f) => [f, '{}\n'])));
    const patterns = ['tasks/**/*.json', '**/*.task.json', 'more/g.json', './literal/missing.json'];
    const onDisk = (await selectTasks(patterns, root)).map((f) => path.relative(root, f)).sort();
    expect(selectTasksInTree(patterns, files)).toEqual(onDisk);
    expect(onDisk).toEqual(['literal/missing.json', 'more/f.task.json', 'more/g.json', 'tasks/a.json', 'tasks/deep/b.json']);
  });
});

describe('the run URL', () => {
  it('comes from the CI that ran the verdict, else there is none', () => {
    const github = { GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '7', GITHUB_RUN_ATTEMPT: '2' };
    expect(ciRunUrl(github)).toBe('https://github.com/o/r/actions/runs/7/attempts/2');
    expect(ciRunUrl({ CI_JOB_URL: 'https://gitlab.example/o/r/-/jobs/9' })).toBe('https://gitlab.example/o/r/-/jobs/9');
    expect(ciRunUrl({ BUILDKITE_BUILD_URL: 'https://buildkite.com/o/p/builds/3' })).toBe('https://buildkite.com/o/p/builds/3');
    expect(ciRunUrl({ CIRCLE_BUILD_URL: 'https://circleci.com/gh/o/r/5' })).toBe('https://circleci.com/gh/o/r/5');
    expect(ciRunUrl({})).toBeNull();
  });
});

describe('a verdict document', () => {
  const record = (file: string, state: string, criteria: [string, string][], sha = 'a'.repeat(64)) => ({
    schemaVersion: 1,
    runId: `run-${file}`,
    mode: 'verify',
    task: { id: file, file, title: '' },
    state,
    reason: state === 'VERIFIED' ? null : 'PRODUCT_FAILURE',
    message: null,
    tools: { elenchos: '0', node: 'v20', git: '2', verifier: null, agent: null },
    contract: {
      files: [
        { path: file, sha256: sha, role: 'task' },
        { path: file, sha256: 'c'.repeat(64), role: 'task-canonical' },
      ],
    },
    configFingerprint: 'x',
    configFile: 'elenchos.config.json',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: null,
    durationMs: null,
    pid: 1,
    host: 'h',
    workspace: { path: '.', base: 'b'.repeat(40), kept: false },
    attempts: [
      {
        number: 1,
        status: 'PASS',
        kind: 'verify',
        criteria: criteria.map(([id, status]) => ({ id, status, steps: [] })),
        summary: '',
        startedAt: '2026-01-01T00:00:00.000Z',
        durationMs: 1,
      },
    ],
  });

  it('passes only when there are tasks and every one is VERIFIED', () => {
    const ok = readVerdict(JSON.stringify({ runs: [record('tasks/a.json', 'VERIFIED', [['AC-1', 'PASS']])] }));
    expect(ok).toMatchObject({ allVerified: true, passedTests: ['tasks/a.json#AC-1'], failedTests: [], commits: ['b'.repeat(40)] });
    // The parsed contract's digest is no file's: only the file digests are configuration.
    expect(ok.contractFiles).toEqual([{ path: 'tasks/a.json', sha256: 'a'.repeat(64), role: 'task' }]);
    expect(readVerdict('{"runs": []}').allVerified).toBe(false);
    const refused = readVerdict(
      JSON.stringify({ runs: [record('tasks/a.json', 'VERIFIED', [['AC-1', 'PASS']]), { file: 'tasks/b.json', refused: 'bad' }] }),
    );
    expect(refused).toMatchObject({ allVerified: false, failedTests: ['tasks/b.json#verdict'] });
    // An ERROR run whose criteria all passed (tampering caught) fails as a whole.
    const tampered = readVerdict(JSON.stringify({ runs: [record('tasks/a.json', 'ERROR', [['AC-1', 'PASS']])] }));
    expect(tampered).toMatchObject({ allVerified: false, passedTests: ['tasks/a.json#AC-1'], failedTests: ['tasks/a.json#verdict'] });
  });

  it('refuses runs that read two versions of one file, and a document without runs', () => {
    const twice = {
      runs: [record('tasks/a.json', 'VERIFIED', []), { ...record('tasks/a.json', 'VERIFIED', [], 'd'.repeat(64)), runId: 'z' }],
    };
    expect(() => readVerdict(JSON.stringify(twice))).toThrow('the runs read two versions of tasks/a.json');
    expect(() => readVerdict('{"tasks": []}')).toThrow('holds no "runs" array');
  });
});
