// What the fake kane-cli leaves on disk, through the adapter (a real child process each time): every write
// shared/reference/kane-cli.md documents for `testmd run` (§0 fact 4, §1, §2, §8.1-§8.3), so that the run
// tests see what a real Kane does to a repository.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kaneAdapter } from '../../src/verifiers/kane/adapter.js';
import { waitForFile } from '../helpers/live-cli.js';
import { tempDir } from '../helpers/temp.js';
import { corpusTest, kaneFixture, statuses, withVerifies } from './kane-harness.js';

const ROOT_TEST = `---
mode: testing
---

# Checkout

## Sign in @verifies AC-001
@import ./helpers/login.md

## Buy @verifies AC-002
Verify the cart shows "Buy milk".
`;
const LOGIN =
  '---\nmode: testing\n---\n\n# Login helper\n\n## Open the login page\nOpen {{start_url}}/login.\n\n## Submit\n@import ./submit.md\n';
const SUBMIT = '## Press submit\nClick "Sign in".\n';

function withHelpers(
  text: string,
  env: Record<string, string>,
  helpers: Record<string, string> = { 'login.md': LOGIN, 'submit.md': SUBMIT },
) {
  const fixture = kaneFixture({ text, name: 'checkout_test.md', env });
  mkdirSync(path.join(fixture.root, 'tests/helpers'), { recursive: true });
  for (const [name, content] of Object.entries(helpers)) writeFileSync(path.join(fixture.root, 'tests/helpers', name), content);
  return fixture;
}

const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n');
const activePointers = (home: string) => {
  const dir = path.join(home, '.testmuai/kaneai/sessions/active');
  return existsSync(dir) ? readdirSync(dir) : [];
};

describe('the fake kane-cli writes what the real one writes', () => {
  it('a passing run with an @import: the cwd store, output-<stem>/, a helper-output per call site, the session folder, the pointer while it runs', async () => {
    const signals = tempDir('elenchos-signals-');
    const fixture = withHelpers(ROOT_TEST, { FAKE_KANE_SCENARIO: 'pass', FAKE_SIGNAL_DIR: signals });
    const { root, home } = fixture;
    expect(existsSync(path.join(root, '.testmuai'))).toBe(false);
    const running = kaneAdapter.verify(fixture.ctx);
    // While it runs (§0 fact 4, §2): sessions/active/<pid>.json names this run's session and cwd.
    await waitForFile(path.join(signals, 'verifier-started'));
    const pid = readFileSync(path.join(signals, 'verifier-started'), 'utf8');
    const pointer = JSON.parse(readFileSync(path.join(home, `.testmuai/kaneai/sessions/active/${pid}.json`), 'utf8'));
    expect(pointer).toMatchObject({ pid: Number(pid), cwd: root, surface: 'testmd', cli_version: '0.8.17-beta.1' });
    expect(Date.parse(pointer.started)).not.toBeNaN();
    writeFileSync(path.join(signals, 'adversary-acted'), '');
    writeFileSync(path.join(signals, 'adversary-done'), '');
    const result = await running;
    expect(result.status).toBe('PASS');
    expect(statuses(result)).toEqual(['PASS', 'PASS']);
    // Removed on exit.
    expect(activePointers(home)).toEqual([]);
    const sessionId = result.details.sessionId as string;
    expect(pointer.session_dir).toBe(path.join(home, '.testmuai/kaneai/sessions', sessionId));

    // §8.2: the session folder under HOME, with the stdout tee, tui.log, session.json and the sealed pack.
    const session = pointer.session_dir as string;
    expect(readFileSync(path.join(session, 'events.ndjson'))).toEqual(readFileSync(path.join(fixture.evidenceDir, 'events.ndjson')));
    expect(existsSync(path.join(session, 'tui.log'))).toBe(true);
    expect(JSON.parse(readFileSync(path.join(session, 'session.json'), 'utf8'))).toMatchObject({ persist: true });
    const [packName] = readdirSync(path.join(session, 'evidence'));
    expect(packName).toMatch(/^[0-9a-f-]{36}\.evidence$/);
    // §8.3: the same pack copied into the cwd's project store (the repository had no .testmuai/).
    const store = path.join(root, '.testmuai/evidence', packName!);
    expect(readFileSync(store)).toEqual(readFileSync(path.join(session, 'evidence', packName!)));
    expect(readFileSync(store).subarray(0, 4).toString('latin1')).toBe('PK\x03\x04');
    expect(readdirSync(path.join(root, '.testmuai'))).toEqual(['evidence']);

    // §8.1: output-<stem>/ beside the test; the import step's entry points at its call site's folder.
    const result1 = readFileSync(path.join(root, 'tests/output-checkout/Result.md'), 'utf8');
    expect(result1).toContain(`status: passed\n`);
    expect(result1).toContain(`session_id: ${sessionId}\n`);
    expect(result1).toContain(
      '## Sign in @verifies AC-001 ✓ passed (via @import ./helpers/login.md — 2 inlined steps, 2.4s → ./helpers/helper-output-login-checkout-1/Result.md)',
    );
    expect(result1).toContain('## Buy @verifies AC-002 ✓ passed (1.2s)');
    const meta = JSON.parse(readFileSync(path.join(root, 'tests/output-checkout/.internal/meta.json'), 'utf8'));
    expect(meta.executions[0].execution_id).toBe(packName!.replace(/\.evidence$/, ''));
    expect(existsSync(path.join(root, 'tests/output-checkout/.internal/execution.json'))).toBe(true);
    expect(readdirSync(path.join(root, 'tests/output-checkout/.internal/steps'))).toEqual([expect.stringMatching(/^2-[0-9a-f]{8}$/)]);

    // §8.1 / composition.md: helper-output-<helper>-<root>-<step>/ beside each helper reached, nested ones too.
    expect(readdirSync(path.join(root, 'tests/helpers')).sort()).toEqual([
      'helper-output-login-checkout-1',
      'helper-output-submit-checkout-1',
      'login.md',
      'submit.md',
    ]);
    const login = readFileSync(path.join(root, 'tests/helpers/helper-output-login-checkout-1/Result.md'), 'utf8');
    expect(login).toContain('test: ../login.md\nstatus: passed\n');
    expect(login).toContain('## Open the login page ✓ passed (1.2s)');
    expect(login).toContain(
      '## Submit ✓ passed (via @import ./submit.md — 1 inlined steps, 1.2s → ./helper-output-submit-checkout-1/Result.md)',
    );
    expect(existsSync(path.join(root, 'tests/helpers/helper-output-login-checkout-1/.internal/meta.json'))).toBe(true);
    expect(readFileSync(path.join(root, 'tests/helpers/helper-output-submit-checkout-1/Result.md'), 'utf8')).toContain(
      '## Press submit ✓ passed',
    );

    // The stream: one root step per import, its helper steps as sub-runs.
    const events = lines(path.join(fixture.evidenceDir, 'events.ndjson')).map((l) => JSON.parse(l));
    expect(events.find((e) => e.type === 'test_md_step_start' && e.step_index === 1)).toMatchObject({ ref: './helpers/login.md' });
    expect(events.find((e) => e.type === 'test_md_step_end' && e.step_index === 1)).toMatchObject({ status: 'passed', inlined_count: 2 });
    expect(events.filter((e) => e.type === 'run_end')).toHaveLength(3);
  });

  it('one helper imported at two steps: one folder per call site; a failing sub-step is named in Result.md', async () => {
    const text = `# Two\n\n## A @verifies AC-001\n@import ./helpers/login.md\n\n## B @verifies AC-002\n@import ./helpers/login.md\n`;
    const twice = withHelpers(text, { FAKE_KANE_SCENARIO: 'pass' }, { 'login.md': '## Open\nOpen it.\n' });
    expect((await kaneAdapter.verify(twice.ctx)).status).toBe('PASS');
    expect(readdirSync(path.join(twice.root, 'tests/helpers')).sort()).toEqual([
      'helper-output-login-checkout-1',
      'helper-output-login-checkout-2',
      'login.md',
    ]);

    const failing = withHelpers(ROOT_TEST, { FAKE_KANE_SCENARIO: 'product-fail:1' });
    const result = await kaneAdapter.verify(failing.ctx);
    expect(statuses(result)).toEqual(['FAIL', 'UNVERIFIED']);
    const out = readFileSync(path.join(failing.root, 'tests/output-checkout/Result.md'), 'utf8');
    expect(out).toContain('status: failed\n');
    expect(out).toContain(
      '## Sign in @verifies AC-001 ✗ failed (via @import ./helpers/login.md — at sub-step 2, 4.3s → ./helpers/helper-output-login-checkout-1)',
    );
    expect(out).toContain('## Buy @verifies AC-002 ⏭ skipped');
    expect(readFileSync(path.join(failing.root, 'tests/helpers/helper-output-login-checkout-1/Result.md'), 'utf8')).toContain(
      '## Submit ✗ failed',
    );
    const end = lines(path.join(failing.evidenceDir, 'events.ndjson'))
      .map((l) => JSON.parse(l))
      .find((e) => e.type === 'test_md_step_end');
    expect(end).toMatchObject({ step_index: 1, status: 'failed', inlined_count: 2, failed_sub_step_index: 2 });
  });

  it.each([
    [
      'a test file imported',
      '## A\n@import ./other_test.md\n',
      { 'other_test.md': '## X\nx\n' },
      'error: cannot @import a test file: only helpers may be imported (got ./other_test.md)',
    ],
    [
      'a cycle',
      '## A\n@import ./helpers/a.md\n',
      { 'helpers/a.md': '## B\n@import ./b.md\n', 'helpers/b.md': '## C\n@import ./a.md\n' },
      'error: cyclic reference: checkout_test.md → a.md → b.md → a.md',
    ],
    ['a missing helper', '## A\n@import ./helpers/gone.md\n', {}, 'error: @import path not found: ./helpers/gone.md'],
    [
      'prose beside the import',
      '## A\nClick first.\n@import ./helpers/a.md\n',
      { 'helpers/a.md': '## B\nb\n' },
      'step body must be exactly one of prose / @import',
    ],
    [
      'config beyond optional',
      '## A\n```yaml\ntimeout: 60\n```\n@import ./helpers/a.md\n',
      { 'helpers/a.md': '## B\nb\n' },
      "step config on @import may only contain 'optional': got timeout",
    ],
  ])('Kane refuses %s before any browser: exit 2 and nothing written', async (_name, text, files, message) => {
    const fixture = kaneFixture({ text, name: 'checkout_test.md', env: { FAKE_KANE_SCENARIO: 'pass' } });
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(fixture.root, 'tests', name)), { recursive: true });
      writeFileSync(path.join(fixture.root, 'tests', name), content);
    }
    const result = await kaneAdapter.verify(fixture.ctx);
    expect(result).toMatchObject({ status: 'VERIFIER_ERROR', exitCode: 2 });
    expect(result.summary).toContain(message);
    expect(existsSync(path.join(fixture.root, '.testmuai'))).toBe(false);
    expect(existsSync(path.join(fixture.root, 'tests/output-checkout'))).toBe(false);
    expect(existsSync(path.join(fixture.home, '.testmuai'))).toBe(false);
  });

  it('a 0.8.4 stream (legacy): output, store and pack, but no events.ndjson tee and no pointer (both 0.8.17+)', async () => {
    const fixture = withHelpers(ROOT_TEST, { FAKE_KANE_SCENARIO: 'pass', FAKE_KANE_LEGACY: '1' });
    expect((await kaneAdapter.verify(fixture.ctx)).status).toBe('PASS');
    const sessions = path.join(fixture.home, '.testmuai/kaneai/sessions');
    const [sid] = readdirSync(sessions);
    expect(readdirSync(path.join(sessions, sid!)).sort()).toEqual(['evidence', 'session.json', 'tui.log']);
    expect(readdirSync(path.join(fixture.root, '.testmuai/evidence'))).toHaveLength(1);
    expect(existsSync(path.join(fixture.root, 'tests/helpers/helper-output-login-checkout-1/Result.md'))).toBe(true);
  });
});

describe('a replayed capture leaves what its run left', () => {
  it('t7 (0.8.4): output-<stem>/ from the stream, the pack under HOME and in the cwd store under its printed name', async () => {
    const fixture = kaneFixture({
      text: withVerifies(corpusTest('cart_discount_test.md')),
      name: 'cart_discount_test.md',
      env: { FAKE_KANE_REPLAY: 't7-cart_discount-author' },
    });
    const result = await kaneAdapter.verify(fixture.ctx);
    expect(result.status).toBe('FAIL');
    const execution = '20091f19-2681-44ca-bc81-81c9e0a4587d';
    const session = path.join(fixture.home, '.testmuai/kaneai/sessions/994d16b7-6a50-4caa-bc09-491ba6663ffc');
    expect(readFileSync(path.join(fixture.root, `.testmuai/evidence/${execution}.evidence`))).toEqual(
      readFileSync(path.join(session, `evidence/${execution}.evidence`)),
    );
    expect(readdirSync(session).sort()).toEqual(['evidence', 'session.json', 'tui.log']);
    expect(existsSync(path.join(fixture.home, '.testmuai/kaneai/sessions/active'))).toBe(false);
    const out = readFileSync(path.join(fixture.root, 'tests/output-cart_discount/Result.md'), 'utf8');
    expect(out).toContain('status: failed\n');
    expect(out).toContain('session_id: 994d16b7-6a50-4caa-bc09-491ba6663ffc\n');
    expect(out).toContain('## Step 5 — assert the total is ten percent below the subtotal ✗ failed');
    expect(out).toContain('Reason: AP determined agent is stuck — no viable actions remain');
    // The copy the adapter keeps is the cwd store's: the path on stderr is the recorder's HOME.
    expect(
      readFileSync(path.join(fixture.evidenceDir, 'kane', `${execution}.evidence`))
        .subarray(0, 2)
        .toString('latin1'),
    ).toBe('PK');
    expect(result.details.missing).toEqual([]);
  });

  it('a 0.8.17 capture: the tee holds its bytes, the pointer is gone after exit; a run cut short finalizes nothing', async () => {
    const dir = tempDir('elenchos-capture-');
    const start = JSON.stringify({
      type: 'stream_start',
      cli_version: '0.8.17-beta.1',
      surface: 'testmd',
      pid: 1,
      v: 1,
      ts: '2026-09-21T08:49:55.832Z',
    });
    const step = (i: number) => [
      JSON.stringify({ type: 'test_md_step_start', step_index: i, heading: `Step ${i} — check ${i}`, ref: null, v: 1 }),
      JSON.stringify({ type: 'run_end', status: 'passed', result_code: 100, reason_code: 'success.complete', v: 1 }),
      JSON.stringify({ type: 'test_md_step_end', step_index: i, status: 'passed', duration_s: 1, v: 1 }),
    ];
    const done = [
      JSON.stringify({
        type: 'test_md_summary',
        overall_status: 'passed',
        steps: { total: 1, passed: 1, failed: 0, skipped: 0 },
        cancelled: false,
        v: 1,
      }),
      JSON.stringify({ type: 'test_md_done', overall_status: 'passed', session_id: 'bcb0c6bf-f2c5-400f-b431-0bae66b72b3a', v: 1 }),
    ];
    const hint =
      '\nevidence: view locally with `kane-cli evidence serve /Users/dev/.testmuai/kaneai/sessions/bcb0c6bf-f2c5-400f-b431-0bae66b72b3a/evidence/6e0b9f52-1111-4c3e-9d7e-2a5a0e7c9b10.evidence`\n';
    const capture = (name: string, stdout: string[], exit: number) => {
      writeFileSync(path.join(dir, `${name}.ndjson`), `${stdout.join('\n')}\n`);
      writeFileSync(path.join(dir, `${name}.stderr.txt`), hint);
      writeFileSync(path.join(dir, `${name}.exit.txt`), `exit=${exit}\n`);
      return path.join(dir, name);
    };
    const text = withVerifies('# One\n\n## Step 1 — check 1\n\nVerify it.\n');
    const whole = kaneFixture({ text, env: { FAKE_KANE_REPLAY: capture('whole', [start, ...step(1), ...done], 0) } });
    expect((await kaneAdapter.verify(whole.ctx)).status).toBe('PASS');
    const session = path.join(whole.home, '.testmuai/kaneai/sessions/bcb0c6bf-f2c5-400f-b431-0bae66b72b3a');
    expect(readFileSync(path.join(session, 'events.ndjson'))).toEqual(readFileSync(path.join(dir, 'whole.ndjson')));
    expect(activePointers(whole.home)).toEqual([]);
    expect(existsSync(path.join(whole.root, '.testmuai/evidence/6e0b9f52-1111-4c3e-9d7e-2a5a0e7c9b10.evidence'))).toBe(true);
    expect(readFileSync(path.join(whole.root, 'tests/output-sample/Result.md'), 'utf8')).toContain('## Step 1 — check 1 ✓ passed (1s)');

    // No test_md_done: the run never reached its last phase, so no output folder and no pack, anywhere.
    const cut = kaneFixture({ text, env: { FAKE_KANE_REPLAY: capture('cut', [start, ...step(1)], 1) } });
    const result = await kaneAdapter.verify(cut.ctx);
    expect(result.status).not.toBe('PASS');
    expect(existsSync(path.join(cut.root, '.testmuai'))).toBe(false);
    expect(existsSync(path.join(cut.root, 'tests/output-sample'))).toBe(false);
    expect(result.details.missing).toContain(
      'evidence pack not found locally: /Users/dev/.testmuai/kaneai/sessions/bcb0c6bf-f2c5-400f-b431-0bae66b72b3a/evidence/6e0b9f52-1111-4c3e-9d7e-2a5a0e7c9b10.evidence',
    );
  });
});
