// One endless line from a verifier: memory stays bounded and the attempt is never a PASS.
import http from 'node:http';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapCriteria } from '../../src/contract/criteria-map.js';
import { LineSplitter, MAX_LINE_LENGTH, NdjsonReader } from '../../src/util/ndjson-reader.js';
import { commandAdapter } from '../../src/verifiers/command/adapter.js';
import { parseTestMd } from '../../src/verifiers/kane/test-md.js';
import { FIXTURES, TEST_MD } from '../helpers/project.js';
import { tempDir } from '../helpers/temp.js';

let server: http.Server;
let url = '';
beforeAll(async () => {
  server = http.createServer((_q, r) => r.end('<h1>Tasks</h1><form>New task</form><ul><li>Buy milk</li></ul>')).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
});
afterAll(() => server.close());

describe('LineSplitter', () => {
  it('delivers a line that passes the cap once, cut to exactly the cap, and drops the rest up to its newline', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter(10);
    for (const chunk of ['ab', 'c\r\n0123456', '789abcdef', 'ghij', 'klm\nnext\n', 'tail']) splitter.push(chunk, (l) => lines.push(l));
    splitter.end((l) => lines.push(l));
    expect(lines).toEqual(['abc', '0123456789', 'next', 'tail']);
    const reader = new NdjsonReader();
    for (const line of ['{"a":1}', 'x'.repeat(MAX_LINE_LENGTH)]) reader.read(line);
    expect(reader.stats).toMatchObject({ events: 1, invalid: 1, overlong: 1 });
  });
});

describe('a verifier printing a 50 MB line without a newline', () => {
  it('is INCONCLUSIVE, its bytes are still stored, and memory stays far below the 1.4 GB it took', async () => {
    const cwd = tempDir();
    mkdirSync(path.join(cwd, 'tests'));
    writeFileSync(path.join(cwd, 'tests/add.md'), TEST_MD);
    const criteria = [
      { id: 'AC-001', description: 'the form' },
      { id: 'AC-002', description: 'the list' },
    ];
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const result = await commandAdapter
      .verify({
        cwd,
        testFile: path.join(cwd, 'tests/add.md'),
        testFileLabel: 'tests/add.md',
        url,
        criteria,
        map: mapCriteria(criteria, parseTestMd(TEST_MD).steps),
        variables: {},
        command: path.join(FIXTURES, 'bin/fake-verifier'),
        args: [],
        env: { FAKE_VERIFIER_MODE: 'huge-line' },
        baseEnv: { PATH: process.env.PATH },
        timeoutMs: 60_000,
        evidenceDir: path.join(cwd, 'evidence'),
        browserPath: undefined,
        signal: new AbortController().signal,
      })
      .finally(() => clearInterval(sampler));
    expect(result.status).toBe('INCONCLUSIVE');
    expect(result.summary).toMatch(/line longer than Elenchos accepts/);
    expect(statSync(path.join(cwd, 'evidence/events.ndjson')).size).toBeGreaterThan(50 * 1024 * 1024);
    expect(peak - before).toBeLessThan(300 * 1024 * 1024);
  }, 90_000);
});
