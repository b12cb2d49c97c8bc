#!/usr/bin/env node
// The bad inputs Elenchos must refuse in one line (huge, deep, binary or looping JSON and the like), timed and measured against the built code (docs/security.md quotes this).
// Usage: npm run build && node bench/bad-input.js
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseJsonText, readJsonFile } from '../dist/util/json-file.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'elenchos-bad-input-'));
const rows = [];
const time = async (name, work) => {
  const started = performance.now();
  let outcome;
  try {
    outcome = `accepted ${JSON.stringify(await work()).slice(0, 30)}`;
  } catch (error) {
    outcome = `${error.constructor.name}: ${error.message.slice(0, 100)}`;
  }
  rows.push([name, `${(performance.now() - started).toFixed(0)} ms`, outcome]);
};

const filler = Array.from({ length: 40_000 }, (_, i) => `"k${i}": "${'x'.repeat(40)}"`).join(',\n');
await time('2 MB task, NaN near the end', () => parseJsonText(`{\n${filler},\n"late": NaN}\n`, 'task.json'));
await time('config nested 10,000 deep', () =>
  parseJsonText(`{"agent": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`, 'elenchos.config.json'),
);
await time('duplicate testFile key', () => parseJsonText('{"testFile": "../../etc/passwd", "testFile": "tests/x_test.md"}', 'task.json'));
await time('task with a UTF-8 BOM', () => parseJsonText('\uFEFF{"id": "a"}', 'task.json'));
execFileSync('mkfifo', [path.join(dir, 'fifo.json')]);
await time('task that is a FIFO', () => readJsonFile(path.join(dir, 'fifo.json'), 'fifo.json'));
symlinkSync('/dev/zero', path.join(dir, 'zero.json'));
await time('symlink to /dev/zero', () => readJsonFile(path.join(dir, 'zero.json'), 'zero.json'));

// A verifier that prints one 50 MB line without a newline, then a passing report: run in a child to read its peak RSS.
const child = `
  const http = await import('node:http');
  const { commandAdapter } = await import(${JSON.stringify(path.join(here, '../dist/verifiers/command/adapter.js'))});
  const { mapCriteria } = await import(${JSON.stringify(path.join(here, '../dist/contract/criteria-map.js'))});
  const { parseTestMd } = await import(${JSON.stringify(path.join(here, '../dist/verifiers/kane/test-md.js'))});
  const fs = await import('node:fs');
  const md = '## Step 1 @verifies AC-001\\n\\nVerify "New task".\\n';
  const server = http.createServer((_q, r) => r.end('<form>New task</form>')).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  fs.mkdirSync(${JSON.stringify(path.join(dir, 'v/tests'))}, { recursive: true });
  fs.writeFileSync(${JSON.stringify(path.join(dir, 'v/tests/a.md'))}, md);
  const criteria = [{ id: 'AC-001', description: 'form' }];
  const started = Date.now();
  const result = await commandAdapter.verify({ cwd: ${JSON.stringify(path.join(dir, 'v'))}, testFile: ${JSON.stringify(path.join(dir, 'v/tests/a.md'))}, testFileLabel: 'tests/a.md',
    url: 'http://127.0.0.1:' + server.address().port + '/', criteria, map: mapCriteria(criteria, parseTestMd(md).steps), variables: {},
    command: ${JSON.stringify(path.join(here, '../test/fixtures/bin/fake-verifier'))}, args: [], env: { FAKE_VERIFIER_MODE: 'huge-line' },
    baseEnv: { PATH: process.env.PATH }, timeoutMs: 120000, evidenceDir: ${JSON.stringify(path.join(dir, 'v/evidence'))}, signal: new AbortController().signal });
  server.close();
  console.log(JSON.stringify({ ms: Date.now() - started, rss: process.resourceUsage().maxRSS, status: result.status }));
`;
const measured = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', child], { encoding: 'utf8' }));
rows.push([
  'verifier line of 50 MB, no newline',
  `${measured.ms} ms`,
  `${measured.status}, peak RSS ${Math.round(measured.rss / 1024)} MB`,
]);

// Any child (agent, app, setup) printing one 50 MB line without a newline through the spawn helper, into two
// log files, with a line listener; the reading process's peak RSS, next to the same process doing nothing.
const writer = (lineMb) =>
  `const p = Buffer.alloc(1 << 20, 120); let i = 0; (function next() { while (i < ${lineMb}) { i++; if (!process.stdout.write(p)) return process.stdout.once('drain', next); } process.stdout.write('\\n'); })();`;
const spawnChild = (lineMb) => `
  const { runProcess } = await import(${JSON.stringify(path.join(here, '../dist/process/spawn.js'))});
  const started = Date.now();
  let longest = 0;
  const result = await runProcess(process.execPath, ['-e', ${JSON.stringify(writer(lineMb))}], { cwd: ${JSON.stringify(dir)}, env: {},
    logFile: ${JSON.stringify(path.join(dir, 'child.log'))}, stdoutFile: ${JSON.stringify(path.join(dir, 'child.out'))},
    onStdoutLine: (line) => (longest = Math.max(longest, line.length)) });
  console.log(JSON.stringify({ ms: Date.now() - started, rss: process.resourceUsage().maxRSS, longest, exit: result.exitCode }));
`;
const idle = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', spawnChild(0)], { encoding: 'utf8' }));
const spawned = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', spawnChild(50)], { encoding: 'utf8' }));
rows.push([
  'child line of 50 MB via spawn helper',
  `${spawned.ms} ms`,
  `listener got ${spawned.longest} chars, peak RSS ${Math.round(spawned.rss / 1024)} MB (${Math.round(idle.rss / 1024)} MB with no output)`,
]);

rmSync(dir, { recursive: true, force: true });
for (const [name, ms, outcome] of rows) console.log(`${name.padEnd(36)} ${ms.padStart(8)}  ${outcome}`);
