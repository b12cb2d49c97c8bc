#!/usr/bin/env node
// The cost of redacting a stored log: a 20 MB, 150,000-line agent log with three secrets, redacted by the
// build of an earlier commit ("before", default 404d98b: main before every encoding an agent can produce
// with one standard tool was looked for) and by this checkout's build ("after"), side by side, interleaved,
// median of 5, each on a fresh copy (redactFile rewrites the file). Prints wall and CPU time (the process's
// own, which a busy shared machine disturbs less than the wall clock) and their ratios.
// Usage: npm run build && node bench/redaction.js [before-ref] [runs]
//        node bench/redaction.js --log-only <file>   (only writes the log, e.g. for a profiler)
import { execFileSync } from 'node:child_process';
import { copyFileSync, createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { median, timeOnce } from './lib.js';

const beforeRef = process.argv[2] && process.argv[2] !== '--log-only' ? process.argv[2] : '404d98b';
const runs = Number(process.argv[3] ?? 5);
const LINES = 150_000;
const repo = fileURLToPath(new URL('..', import.meta.url));
const base = mkdtempSync(path.join(tmpdir(), 'elenchos-bench-redact-'));

/** The redaction modules of `ref`, type-stripped into `dir` (they import nothing but each other and node). */
function buildAt(ref, dir) {
  mkdirSync(dir, { recursive: true });
  const names = execFileSync('git', ['ls-tree', '--name-only', `${ref}:src/evidence`], { cwd: repo, encoding: 'utf8' })
    .split('\n')
    .filter((n) => /^redact.*\.ts$/.test(n));
  for (const name of names) {
    const source = execFileSync('git', ['show', `${ref}:src/evidence/${name}`], { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 26 });
    const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
    writeFileSync(path.join(dir, name.replace(/\.ts$/, '.js')), js.outputText);
  }
  return path.join(dir, 'redact.js');
}

/** mulberry32: the same log every time. */
function random(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SECRETS = ['sk-ant-api03-Zq8Wm5Tx7Vn2Pb9Lc4Hd6Fg1Js0YkQw3Er5', 'ghs_4f9c2a7e1b8d3f6a0c5e9b2d7f1a4c8e6b3d', 'Hunter2-Correct-Horse-9'];

/** An agent's log as the last round's was: stream-json lines, build output, paths, URLs, hex, base64. */
async function writeLog(file) {
  const rnd = random(20261207);
  const pick = (list) => list[Math.floor(rnd() * list.length)];
  const word = () => pick(['the', 'test', 'page', 'form', 'task', 'list', 'value', 'render', 'server', 'route', 'index', 'state']);
  const words = (n) => Array.from({ length: n }, word).join(' ');
  const hex = (n) =>
    Array.from({ length: n }, () =>
      Math.floor(rnd() * 256)
        .toString(16)
        .padStart(2, '0'),
    ).join('');
  const out = createWriteStream(file);
  for (let i = 0; i < LINES; i++) {
    let line;
    const kind = rnd();
    if (i % 15_000 === 7) line = `{"type":"text","text":"using ${SECRETS[i % 3]} for the call"}`;
    else if (kind < 0.4)
      line = `{"type":"assistant","message":{"content":[{"type":"text","text":"${words(8)} \\"${word()}\\" ${words(6)}\\n${words(4)}"}]}}`;
    else if (kind < 0.6)
      line = `{"type":"tool_use","name":"Edit","input":{"file_path":"/home/u/app/src/${word()}/${word()}.ts","old_string":"const ${word()} = ${Math.floor(rnd() * 1e6)};"}}`;
    else if (kind < 0.72) line = `  ✓ src/${word()}.test.ts (${Math.floor(rnd() * 40)} tests) ${Math.floor(rnd() * 900)}ms ${words(12)}`;
    else if (kind < 0.78) line = Buffer.from(words(14)).toString('base64').slice(0, 76);
    else if (kind < 0.83) line = `${hex(4)}: ${hex(2)} ${hex(2)} ${hex(2)} ${hex(2)} ${hex(2)} ${hex(2)} ${hex(2)} ${hex(2)}  ${words(2)}`;
    else if (kind < 0.88)
      line = `GET /api/${word()}?q=${encodeURIComponent(`${words(3)} & ${word()}/${word()}`)}&id=${hex(6)} 200 ${Math.floor(rnd() * 90)}ms`;
    else if (kind < 0.94) line = `npm warn deprecated ${word()}@${Math.floor(rnd() * 9)}.${Math.floor(rnd() * 20)}.0: ${words(10)}`;
    else
      line = `    at ${word()}${word()} (/home/u/app/node_modules/${word()}/dist/${word()}.js:${Math.floor(rnd() * 900)}:${Math.floor(rnd() * 80)})`;
    // Pad towards the last round's 20 MB: ~140 bytes a line on average.
    line += ` ${'.'.repeat(Math.max(0, 100 - line.length))}`;
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

if (process.argv[2] === '--log-only') {
  await writeLog(process.argv[3]);
  rmSync(base, { recursive: true, force: true });
  process.exit(0);
}
const log = path.join(base, 'agent.log');
try {
  await writeLog(log);
  const size = statSync(log).size;
  const before = await import(pathToFileURL(buildAt(beforeRef, path.join(base, 'before'))).href);
  const after = await import(pathToFileURL(path.join(repo, 'dist/evidence/redact.js')).href);
  const sides = [
    { name: `before (${beforeRef})`, Redactor: before.Redactor, times: [], cpu: [], replacements: 0 },
    { name: 'after (this build)', Redactor: after.Redactor, times: [], cpu: [], replacements: 0 },
  ];
  for (let i = 0; i < runs; i++) {
    // Interleaved, so a noisy neighbour slows both sides alike; each gets a fresh copy (the copy is not timed).
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
      const copy = path.join(base, `copy-${i}.log`);
      copyFileSync(log, copy);
      const redactor = new side.Redactor({ values: SECRETS });
      const cpu = process.cpuUsage();
      side.times.push(
        await timeOnce(async () => {
          side.replacements = (await redactor.redactFile(copy)).replacements;
        }),
      );
      const used = process.cpuUsage(cpu);
      side.cpu.push((used.user + used.system) / 1000);
      if (readFileSync(copy, 'latin1').includes(SECRETS[0])) throw new Error(`${side.name} left a secret in the log`);
      rmSync(copy);
    }
  }
  console.log(`log: ${(size / 1024 / 1024).toFixed(1)} MB, ${LINES} lines, ${SECRETS.length} secrets; median of ${runs}, interleaved`);
  const s = (ms) => (ms / 1000).toFixed(2);
  for (const side of sides)
    console.log(
      `${side.name.padEnd(28)} wall ${s(median(side.times))} s, cpu ${s(median(side.cpu))} s  (${side.replacements} replacements; wall: ${side.times.map(s).join(' ')}; cpu: ${side.cpu.map(s).join(' ')})`,
    );
  console.log(
    `ratio after/before: wall ${(median(sides[1].times) / median(sides[0].times)).toFixed(2)}x, cpu ${(median(sides[1].cpu) / median(sides[0].cpu)).toFixed(2)}x`,
  );
} finally {
  rmSync(base, { recursive: true, force: true });
}
