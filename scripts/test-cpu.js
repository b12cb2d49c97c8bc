#!/usr/bin/env node
// Where a test file's time goes: runs `vitest run <file>` once per file and samples /proc (every 50 ms)
// for every process of its tree, orphans included (a Chromium a test's Playwright started), then prints
// the wall time, the CPU time of the tree, the ratio (CPU / wall: near 1 means the file keeps one core
// busy, far below it means it mostly waits) and the CPU by kind of process. Linux only.
//
//   npm run build && node scripts/test-cpu.js test/e2e/run.test.ts [more files…]
//
// The CPU seconds hold on a loaded machine (the wall time does not): compare files, or two versions of
// one file, by CPU. A process that lives under 50 ms is missed; its CPU is a rounding error here.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node scripts/test-cpu.js <test file> [more test files]');
  process.exit(3);
}
// /proc/<pid>/stat counts in clock ticks; Linux's USER_HZ is 100 on every common build.
const TICK = 1 / 100;

function kind(cmd) {
  if (/chrom(e|ium)/.test(cmd)) return /--type=renderer|--type=zygote/.test(cmd) ? 'chromium renderers' : 'chromium';
  if (cmd.includes('playwright') && cmd.includes('process.js')) return 'playwright worker';
  if (cmd.includes('playwright') && cmd.includes('--list')) return 'playwright --list';
  if (cmd.includes('playwright')) return 'playwright runner';
  if (cmd.includes('vitest')) return 'vitest';
  if (cmd.includes('bin/elenchos.js') || cmd.includes('npx --no -- elenchos')) return 'elenchos CLI';
  if (/^(\S*\/)?git\b/.test(cmd)) return 'git';
  if (cmd.includes('test/fixtures/')) return 'fakes (kane, agents, verifier)';
  if (/\bapp(\.js|\/server\.js)\b/.test(cmd)) return 'apps under test';
  if (/^(\S*\/)?(npm|npx)\b|npm-cli|npx-cli/.test(cmd)) return 'npm';
  return 'other';
}

/** pid → { ppid, cpu seconds, start time, cmdline } for every readable process. */
function snapshot() {
  const out = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(name, { ppid: fields[1], cpu: (Number(fields[11]) + Number(fields[12])) * TICK, start: fields[19] });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

async function measure(file) {
  const child = spawn(process.execPath, [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run', file], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const started = Date.now();
  const parents = new Map(); // pid → ppid, as first seen (an orphan keeps its first parent here)
  const seen = new Map(); // `${pid}:${start}` → { cpu, cmd }
  const ours = (pid) => {
    for (let p = pid, hops = 0; p && hops < 64; p = parents.get(p), hops++) if (p === String(child.pid)) return true;
    return false;
  };
  const sample = () => {
    for (const [pid, info] of snapshot()) {
      if (!parents.has(pid)) parents.set(pid, info.ppid);
      if (!ours(pid)) continue;
      const key = `${pid}:${info.start}`;
      const entry = seen.get(key);
      if (entry) entry.cpu = info.cpu;
      else {
        let cmd = '';
        try {
          cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
        } catch {
          // gone meanwhile
        }
        seen.set(key, { cpu: info.cpu, cmd });
      }
    }
  };
  const timer = setInterval(sample, 50);
  const code = await new Promise((resolve) => child.on('close', resolve));
  clearInterval(timer);
  const wall = (Date.now() - started) / 1000;
  const byKind = new Map();
  let cpu = 0;
  for (const { cpu: seconds, cmd } of seen.values()) {
    cpu += seconds;
    const k = kind(cmd);
    const [s, n] = byKind.get(k) ?? [0, 0];
    byKind.set(k, [s + seconds, n + 1]);
  }
  // Colours off (NO_COLOR in the child's env), so the summary line reads plainly.
  const tests = /Tests\s+(.*)/.exec(output)?.[1]?.trim() ?? '?';
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  console.log(
    `${file}: exit ${code}, ${tests}; wall ${wall.toFixed(1)} s, CPU ${cpu.toFixed(1)} s (${(cpu / wall).toFixed(2)} cores), load ${load}`,
  );
  for (const [k, [s, n]] of [...byKind].sort((a, b) => b[1][0] - a[1][0])) {
    console.log(`  ${s.toFixed(1).padStart(7)} s  ${String(n).padStart(4)} processes  ${k}`);
  }
}

for (const file of files) await measure(file);
