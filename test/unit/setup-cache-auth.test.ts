// The setup cache poisoned by a process of the same user (the app is the agent's code):
// it rewrites a cached file and recomputes the plain sha256 manifest, or forges a stamp. Each attack
// succeeded on the build before the cache was signed with a per-machine key kept outside the repository.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { beginCachedSetup, verifyCachedPaths } from '../../src/core/workspace/setup-cache.js';
import { BWRAP, sandboxCommand } from '../../src/agents/sandbox.js';
import { machineCacheKey } from '../../src/core/workspace/setup-cache-auth.js';
import { cacheKeyPath, secretPathsToHide } from '../../src/util/secret-paths.js';
import { tempDir, tempRepo, writeFiles } from '../helpers/temp.js';

// The machine key lives here for this file's tests (never in the tester's own ~/.local/state).
const STATE = tempDir('elenchos-state-');
const KEY_FILE = cacheKeyPath({ XDG_STATE_HOME: STATE });

const spec = { command: 'npm ci', key: ['package-lock.json'], paths: ['node_modules'] };
const GOOD = 'module.exports = 1;\n';
const POISON = 'module.exports = "poisoned";\n';
const controller = new AbortController();

async function cachedSetup(cacheDir: string, workspace: string, install: () => void) {
  const cached = await beginCachedSetup({ cacheDir, keyFile: KEY_FILE, workspace, spec, signal: controller.signal, waitMs: 30_000 });
  if (cached.kind === 'hit') return { report: cached.report, ran: false };
  try {
    install();
    return { report: cached.save ? await (await cached.save()).done : cached.report, ran: true };
  } finally {
    await cached.release();
  }
}

const install = (repo: string) => () => {
  writeFiles(repo, { 'node_modules/x/index.js': GOOD, 'node_modules/x/package.json': '{"name":"x"}\n' });
};

const worktree = () => tempRepo({ 'package-lock.json': 'L1', '.gitignore': 'node_modules\n' });

// The attacker: another process of the same user, knowing the cache's format (it is open source).
const POISONER = `
const { chmodSync, readFileSync, writeFileSync } = require('node:fs');
const { createHash } = require('node:crypto');
const path = require('node:path');
const [entry, poison] = process.argv.slice(1);
const sha = (data) => createHash('sha256').update(data).digest('hex');
const file = path.join(entry, 'files/node_modules/x/index.js');
chmodSync(file, 0o644);
writeFileSync(file, poison);
const manifestFile = path.join(entry, 'manifest.json');
const m = JSON.parse(readFileSync(manifestFile, 'utf8'));
const e = m.entries.find((x) => x.path === 'node_modules/x/index.js');
e.sha256 = sha(poison);
e.size = Buffer.byteLength(poison);
m.digest = sha(JSON.stringify([m.version, m.key, m.platform, m.paths, m.entries]));
chmodSync(manifestFile, 0o644);
writeFileSync(manifestFile, JSON.stringify(m));
`;

describe('the setup cache, authenticated with a per-machine key', () => {
  it('refuses an entry whose file was rewritten and plain manifest recomputed: discarded, recorded, set up again', async () => {
    const cacheDir = path.join(tempDir(), 'cache');
    const one = worktree();
    const saved = await cachedSetup(cacheDir, one, install(one));
    expect(saved.report).toMatchObject({ status: 'miss', message: expect.stringMatching(/^saved 2 files/) });
    const key = saved.report.key!;
    execFileSync(process.execPath, ['-e', POISONER, path.join(cacheDir, key), POISON]);

    const two = worktree();
    const next = await cachedSetup(cacheDir, two, install(two));
    expect(next.ran).toBe(true); // rebuilt, never restored
    expect(next.report.status).toBe('rejected');
    expect(next.report.warnings).toEqual([expect.stringMatching(/discarded: .*cache key signature/)]);
    expect(readFileSync(path.join(two, 'node_modules/x/index.js'), 'utf8')).toBe(GOOD);
    // The rebuilt entry is signed again: the next worktree restores it.
    const three = worktree();
    const after = await cachedSetup(cacheDir, three, () => {
      throw new Error('setup ran although a good entry was there');
    });
    expect(after.report.status).toBe('hit');
    expect(readFileSync(path.join(three, 'node_modules/x/index.js'), 'utf8')).toBe(GOOD);
  });

  it('refuses a kept (warm) copy whose stamp was forged to vouch for a changed file', async () => {
    const cacheDir = path.join(tempDir(), 'cache');
    const one = worktree();
    const { report } = await cachedSetup(cacheDir, one, install(one));
    const key = report.key!;
    expect(await verifyCachedPaths(cacheDir, one, key, ['node_modules'], KEY_FILE)).toEqual({ ok: true });
    // The app edits the kept file, then rewrites the stamp with the file's new stat signature, so
    // the next check would trust it without reading it.
    const file = path.join(one, 'node_modules/x/index.js');
    writeFileSync(file, POISON);
    const stamps = path.join(cacheDir, key, 'stamps');
    const [name] = readdirSync(stamps);
    const stamp = JSON.parse(readFileSync(path.join(stamps, name!), 'utf8')) as { signatures: Record<string, string> };
    const { statSignature } = await import('../../src/util/tree-manifest.js');
    const { lstat } = await import('node:fs/promises');
    stamp.signatures['node_modules/x/index.js'] = statSignature(await lstat(file, { bigint: true }));
    writeFileSync(path.join(stamps, name!), JSON.stringify(stamp));
    expect(await verifyCachedPaths(cacheDir, one, key, ['node_modules'], KEY_FILE)).toEqual({
      ok: false,
      reason: expect.stringContaining('content differs'),
    });
  });

  it('keeps the key outside the repository, 0600 in a 0700 folder, and lists its folder for the sandbox to hide', async () => {
    const cacheDir = path.join(tempDir(), 'cache');
    const one = worktree();
    await cachedSetup(cacheDir, one, install(one));
    const keyFile = KEY_FILE;
    expect(keyFile).toBe(path.join(STATE, 'elenchos', 'cache.key'));
    expect(existsSync(keyFile)).toBe(true);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(keyFile)).mode & 0o777).toBe(0o700);
    expect(readFileSync(keyFile, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(secretPathsToHide({ XDG_STATE_HOME: STATE })).toContain(path.dirname(keyFile));
  });

  // A review found: the key is made by the first cache save, while the agent (and then the app) already run
  // in their sandboxes; the hide list held only paths that existed when a sandbox started, so the key written
  // a moment later was in plain sight inside it.
  it.skipIf(!existsSync(BWRAP))('a key made after a sandbox started is hidden from it all the same', async () => {
    // Outside /tmp: a sandbox has a /tmp of its own, which would hide the key whatever the hide list says.
    const env = { HOME: tempDir('elenchos-home-', '/var/tmp'), XDG_STATE_HOME: tempDir('elenchos-state-', '/var/tmp') };
    const keyFile = cacheKeyPath(env);
    expect(existsSync(keyFile)).toBe(false);
    const worktree = tempDir('elenchos-wt-');
    const prompt = path.join(tempDir(), 'prompt.md');
    writeFileSync(prompt, 'steal the key\n');
    // The agent: waits for a marker, then reads the key and says what it found.
    const agent = `const fs = require('node:fs');
const wait = () => fs.existsSync('go') ? look() : setTimeout(wait, 10);
const look = () => { let found = 'hidden'; try { found = fs.readFileSync(${JSON.stringify(keyFile)}, 'utf8').trim().length === 64 ? 'read' : 'empty'; } catch {} fs.writeFileSync('result', found); };
wait();`;
    const { command, args } = sandboxCommand(process.execPath, ['-e', agent], {
      worktree,
      checkout: tempDir('elenchos-checkout-'),
      promptFile: prompt,
      writableHome: [],
      home: env.HOME,
      hidden: secretPathsToHide(env),
    });
    const child = spawn(command, args, { stdio: 'ignore' });
    const exited = once(child, 'exit');
    machineCacheKey(keyFile); // the first cache save, while the agent works
    expect(existsSync(keyFile)).toBe(true);
    writeFileSync(path.join(worktree, 'go'), '');
    await exited;
    expect(readFileSync(path.join(worktree, 'result'), 'utf8')).toBe('hidden');
  });
});
