#!/usr/bin/env node
// What the object audit costs without the sandbox (the re-hash of git objects written during a run, so that
// no forged object passes for another; docs/security.md quotes this): a repository of FILES files (about
// 2 KB each) packed, LOOSE loose objects beside (git's gc.auto is 6,700), then the audit with nothing new,
// after a commit of 20 files, and after a gc that rewrote the whole pack; and, for comparison, re-hashing
// every blob of HEAD's tree (what checking every object a checkout reads would cost).
// Usage: npm run build && node bench/object-audit.js [FILES] [LOOSE]
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { auditObjectsSince } from '../dist/git/object-audit.js';

const FILES = Number(process.argv[2] ?? 50_000);
const LOOSE = Number(process.argv[3] ?? 6_000);
const root = mkdtempSync('/var/tmp/elenchos-object-audit-');
const git = (...args) =>
  execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' },
  });
const fill = (prefix, n) => {
  for (let i = 0; i < n; i++) {
    const dir = path.join(root, prefix, String(i % 100));
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `f${i}.txt`), `${prefix} ${i} ${'lorem ipsum dolor sit amet '.repeat(75)}\n`);
  }
};
const time = async (label, work) => {
  const started = performance.now();
  const result = await work();
  console.log(`${label}: ${(performance.now() - started).toFixed(0)} ms ${result === undefined ? '' : JSON.stringify(result)}`);
};

try {
  git('init', '-q', '-b', 'main');
  git('config', 'gc.auto', '0'); // no background gc racing the explicit ones
  fill('src', FILES);
  git('add', '-A');
  git('commit', '-qm', 'base');
  git('gc', '-q');
  fill('loose', LOOSE);
  git('add', '-A'); // LOOSE new blobs, loose
  console.log(`${FILES} files packed, ${git('count-objects').trim()}`);
  const since = Date.now() + 3000; // after every object so far (the audit's slack is 2 s)
  for (const run of [1, 2])
    await time(`audit, nothing new (${run})`, async () => {
      const a = await auditObjectsSince(root, since);
      return { checked: a.checked, forged: a.forged.length };
    });
  const before = Date.now();
  fill('change', 20);
  git('add', 'change');
  git('commit', '-qm', 'twenty files');
  await time('audit after a commit of 20 files', async () => {
    const a = await auditObjectsSince(root, before);
    return { checked: a.checked, forged: a.forged.length };
  });
  git('gc', '-q');
  await time('audit after gc rewrote the pack', async () => {
    const a = await auditObjectsSince(root, before);
    return { checked: a.checked, forged: a.forged.length };
  });
  await time('re-hash every blob of HEAD (cat-file --batch + sha1)', async () => {
    const ids = git('ls-tree', '-r', '--format=%(objectname)', 'HEAD').trim().split('\n');
    const child = spawn('git', ['cat-file', '--batch'], { cwd: root });
    child.stdin.end(`${ids.join('\n')}\n`);
    let pending = Buffer.alloc(0);
    let bad = 0;
    let done = 0;
    for await (const chunk of child.stdout) {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const nl = pending.indexOf(10);
        if (nl < 0) break;
        const [id, type, size] = pending.subarray(0, nl).toString().split(' ');
        const end = nl + 1 + Number(size) + 1;
        if (pending.length < end) break;
        const hash = createHash('sha1')
          .update(`${type} ${size}\0`)
          .update(pending.subarray(nl + 1, end - 1))
          .digest('hex');
        if (hash !== id) bad++;
        done++;
        pending = pending.subarray(end);
      }
    }
    return { blobs: done, bad };
  });
} finally {
  rmSync(root, { recursive: true, force: true });
}
