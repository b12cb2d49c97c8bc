// The command verifier: any executable speaking Elenchos's event protocol, against a real page.
import http from 'node:http';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapCriteria } from '../../src/contract/criteria-map.js';
import { commandAdapter } from '../../src/verifiers/command/adapter.js';
import { parseTestMd } from '../../src/verifiers/kane/test-md.js';
import { FIXTURES, TEST_MD } from '../helpers/project.js';
import { tempDir } from '../helpers/temp.js';

let server: http.Server;
let url = '';
let page = '<h1>Tasks</h1><form>New task</form><ul></ul>';
beforeAll(async () => {
  server = http.createServer((_q, r) => r.end(page)).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
});
afterAll(() => server.close());

const criteria = [
  { id: 'AC-001', description: 'the form' },
  { id: 'AC-002', description: 'the list' },
];

async function verify(mode: string, testMd = TEST_MD, command = path.join(FIXTURES, 'bin/fake-verifier')) {
  const cwd = tempDir();
  mkdirSync(path.join(cwd, 'tests'));
  writeFileSync(path.join(cwd, 'tests/add.md'), testMd);
  const evidenceDir = path.join(cwd, 'evidence');
  const result = await commandAdapter.verify({
    cwd,
    testFile: path.join(cwd, 'tests/add.md'),
    testFileLabel: 'tests/add.md',
    url,
    criteria,
    map: mapCriteria(criteria, parseTestMd(testMd).steps),
    variables: { user: 'ada', password: { value: 'x', secret: true } },
    command,
    args: [],
    env: { FAKE_VERIFIER_MODE: mode },
    baseEnv: { PATH: process.env.PATH },
    timeoutMs: 20_000,
    evidenceDir,
    browserPath: undefined,
    signal: new AbortController().signal,
  });
  return { result, evidenceDir };
}
const byId = (r: { criteria: { id: string; status: string }[] }) => Object.fromEntries(r.criteria.map((c) => [c.id, c.status]));

describe('command verifier', () => {
  it('a confirmed product failure wins over a verifier failure at another step, which is named as not judged', async () => {
    page = '<h1>Tasks</h1><form>New task</form><ul></ul>';
    const { result } = await verify('verifier-fail-first');
    expect(result).toMatchObject({ status: 'FAIL', summary: 'product failure at step 2; could not be judged: AC-001' });
    expect(byId(result)).toEqual({ 'AC-001': 'UNVERIFIED', 'AC-002': 'FAIL' });
    expect(result.findings.map((f) => [f.step, f.kind])).toEqual([
      [1, 'verifier_error'],
      [2, 'product_failure'],
    ]);
  });

  it('FAIL with the failing criterion when a step reports a product failure; the stream is kept', async () => {
    page = '<h1>Tasks</h1><form>New task</form><ul></ul>';
    const { result, evidenceDir } = await verify('check-page');
    expect(result).toMatchObject({ status: 'FAIL', summary: 'product failure at step 2', exitCode: 1 });
    expect(byId(result)).toEqual({ 'AC-001': 'PASS', 'AC-002': 'FAIL' });
    expect(result.findings[0]).toMatchObject({ step: 2, kind: 'product_failure', reason: 'the page does not show "Buy milk"' });
    expect(readFileSync(path.join(evidenceDir, 'events.ndjson'), 'utf8')).toContain('"type":"done"');
  });

  it('PASS when every step passed and every criterion is verified', async () => {
    page = '<h1>Tasks</h1><form>New task</form><ul><li>Buy milk</li></ul>';
    const { result } = await verify('noise');
    expect(result.status).toBe('PASS');
    expect(result.details.lines).toMatchObject({ invalid: 1 });
  });

  it('runs a verifier.command whose quoted path holds spaces: the quoted words are one argument', async () => {
    page = '<h1>Tasks</h1><form>New task</form><ul><li>Buy milk</li></ul>';
    // The fake and its lib/ beside it, in a folder whose name has a space, run through node.
    const dir = path.join(tempDir(), 'my verifiers');
    cpSync(path.join(FIXTURES, 'bin'), dir, { recursive: true });
    const { result } = await verify('check-page', TEST_MD, `"${process.execPath}" "${path.join(dir, 'fake-verifier')}"`);
    expect(result.status).toBe('PASS');
  });

  it.each([
    ['truncated', 'INCONCLUSIVE', 'the verifier exited 0 without a "done" event (its report is cut off)'],
    [
      'mismatch',
      'INCONCLUSIVE',
      'the report does not match the test file: step 1 is "Step 1 — the form is there @verifies AC-001 (renamed)" in the report but "Step 1 — the form is there @verifies AC-001" in the test file',
    ],
    ['verifier-fail', 'VERIFIER_ERROR', 'the verifier failed at step 1: browser crashed'],
  ])('%s → %s', async (mode, status, summary) => {
    page = '<h1>Tasks</h1><form>New task</form><ul><li>Buy milk</li></ul>';
    const { result } = await verify(mode);
    expect(result).toMatchObject({ status, summary });
  });
});

describe('command verifier: malformed reports never pass', () => {
  it('INCONCLUSIVE when a failed step line repeats "status" as passed (JSON.parse would keep the last)', async () => {
    page = '<h1>Tasks</h1><form>New task</form><ul></ul>';
    const { result } = await verify('duplicate-key');
    expect(result.status).toBe('INCONCLUSIVE');
    expect(result.summary).toContain('a step_end event repeats the key "status"');
    expect(byId(result)).not.toEqual({ 'AC-001': 'PASS', 'AC-002': 'PASS' });
  });
});
