#!/usr/bin/env node
// Reads a vitest JSON report (`npx vitest run --reporter=json --outputFile=report.json`) and prints the
// test files and the tests ranked by duration, and the suite's total test time (the sum of the files).
// With --write it also writes test/durations.json, the order test/longest-first.ts schedules files in.
//
//   node scripts/test-durations.js report.json [--top 25] [--write]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
const reportFile = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
if (!reportFile) {
  console.error('usage: node scripts/test-durations.js <vitest json report> [--top N] [--write]');
  process.exit(3);
}
const top = Number(args[args.indexOf('--top') + 1]) || 25;
const report = JSON.parse(readFileSync(reportFile, 'utf8'));

const files = report.testResults.map((file) => ({
  file: path.relative(root, file.name).split(path.sep).join('/'),
  seconds: (file.endTime - file.startTime) / 1000,
  status: file.status,
  tests: file.assertionResults.map((t) => ({ name: t.fullName, seconds: (t.duration ?? 0) / 1000, status: t.status })),
}));
files.sort((a, b) => b.seconds - a.seconds);
const total = files.reduce((sum, f) => sum + f.seconds, 0);
const fmt = (s) => s.toFixed(1).padStart(7);

console.log(`${files.length} files, ${report.numTotalTests} tests (${report.numFailedTests} failed), test time ${total.toFixed(0)} s`);
console.log(`\nslowest files:`);
for (const f of files.slice(0, top)) console.log(`${fmt(f.seconds)} s  ${f.file}${f.status === 'passed' ? '' : `  (${f.status})`}`);
console.log(`\nslowest tests:`);
const tests = files.flatMap((f) => f.tests.map((t) => ({ ...t, file: f.file }))).sort((a, b) => b.seconds - a.seconds);
for (const t of tests.slice(0, top))
  console.log(`${fmt(t.seconds)} s  ${t.file} > ${t.name}${t.status === 'passed' ? '' : `  (${t.status})`}`);

if (args.includes('--write')) {
  // Merged into the committed file: a report of one suite (`npm test` or `npm run test:slow`) keeps the
  // other suite's files, but not a file that is gone. Slowest first, as test/longest-first.ts reads them.
  const durationsFile = path.join(root, 'test/durations.json');
  const previous = Object.fromEntries(
    Object.entries(JSON.parse(readFileSync(durationsFile, 'utf8'))).filter(([file]) => existsSync(path.join(root, file))),
  );
  const measured = Object.fromEntries(files.map((f) => [f.file, Math.round(f.seconds * 10) / 10]));
  const durations = Object.fromEntries(Object.entries({ ...previous, ...measured }).sort((a, b) => b[1] - a[1]));
  writeFileSync(durationsFile, `${JSON.stringify(durations, null, 2)}\n`);
  console.log('\nwrote test/durations.json');
}
