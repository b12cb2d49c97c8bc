// Best of N, safety per candidate: a sandboxed candidate cannot see its rival's worktree or git admin
// folder (with sandbox "none" it can: docs/security.md says so, and this test proves the probe works).
// @module-tag slow
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { FIXTURES, makeProject, onlyRun, processesInside } from '../helpers/project.js';
import { gitSync } from '../helpers/temp.js';
import { gitRead, giveTo, startCliAs, WHO, type Who } from '../helpers/as-user.js';

const PROBE = path.join(FIXTURES, 'agents/rival-probe.js');

function rivals(sandbox: 'none' | 'bwrap') {
  const p = makeProject({ files: { 'rival-probe.js': readFileSync(PROBE, 'utf8') } });
  const config = path.join(p.root, 'elenchos.config.json');
  const settings = JSON.parse(readFileSync(config, 'utf8')) as Record<string, unknown>;
  const agent = { type: 'command', command: process.execPath, args: ['rival-probe.js'], timeoutSeconds: 30, sandbox };
  settings.agents = { a: agent, b: agent };
  writeFileSync(config, JSON.stringify(settings));
  gitSync(p.root, 'commit', '-qam', `rivals ${sandbox}`);
  // One at a time, worktrees kept: b runs while a's worktree and admin folder still exist, with a's file staged.
  const run = spawnSync(process.execPath, [BIN, 'run', 'tasks/add-task.json', '--agents', 'a,b', '--parallel', '1', '--keep'], {
    cwd: p.root,
    encoding: 'utf8',
    env: { ...process.env, ...p.env },
    timeout: 280_000,
  });
  const { dir } = onlyRun(p.root);
  const log = readFileSync(path.join(dir, 'candidates/b/attempts/01/agent.log'), 'utf8');
  const line = /PROBE (\{.*\})/.exec(log)?.[1];
  expect(line, run.stdout + run.stderr).toBeDefined();
  expect(processesInside(p.root)).toEqual([]);
  return { run, probe: JSON.parse(line!) as Record<string, unknown> };
}

describe.skipIf(!existsSync('/usr/bin/bwrap'))('best of N: one candidate cannot see another', { timeout: 300_000 }, () => {
  it("without a sandbox, candidate b reads a's kept worktree and sees its admin folder (documented, docs/security.md)", () => {
    const { probe } = rivals('none');
    expect(probe).toMatchObject({ rivalDirGuessed: true, readRivalWorktree: true });
    expect(probe.otherAdmins).toBeGreaterThan(0);
  });

  it("with bwrap, candidate b sees neither a's worktree nor any other worktree's git admin folder, and still does its work", () => {
    const { run, probe } = rivals('bwrap');
    expect(probe).toEqual({ rivalDirGuessed: true, readRivalWorktree: false, otherAdmins: 0 });
    expect(run.status, run.stdout + run.stderr).toBe(0);
  });
});

/**
 * The test's side of rival-watch.js: each candidate says when it has staged its work, then probes on
 * command; the test decides when (both turns going on; the rival's turn over and its objects settled).
 */
function coordinator() {
  const sockets = new Map<string, Socket>();
  const pending = new Map<string, (line: string) => void>();
  let bothStaged: () => void = () => undefined;
  const staged = new Promise<void>((resolve) => (bothStaged = resolve));
  const server = createServer((socket) => {
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += String(chunk);
      let at;
      while ((at = buffered.indexOf('\n')) >= 0) {
        const [name, ...rest] = buffered.slice(0, at).split(' ');
        buffered = buffered.slice(at + 1);
        if (rest[0] === 'staged') {
          sockets.set(name!, socket);
          if (sockets.size === 2) bothStaged();
        } else pending.get(name!)?.(rest.slice(1).join(' '));
      }
    });
  });
  const listening = new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  return {
    listening,
    staged,
    probe: (name: string) =>
      new Promise<Record<string, unknown>>((resolve) => {
        pending.set(name, (line) => resolve(JSON.parse(line) as Record<string, unknown>));
        sockets.get(name)!.write('probe\n');
      }),
    exit: (name: string) => sockets.get(name)!.write('exit\n'),
    close: () => server.close(),
  };
}

/** Resolves when `check` is true, polling the file system (the settle of a's objects has no other marker outside the sandbox). */
async function settled(check: () => boolean, what: string, ended: Promise<unknown>): Promise<void> {
  let done = false;
  void ended.then(() => (done = true));
  while (!check()) {
    if (done) throw new Error(`the run ended before ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function watchingRivals(sandbox: 'none' | 'bwrap', who: Who) {
  const p = makeProject({ files: { 'rival-watch.js': readFileSync(path.join(FIXTURES, 'agents/rival-watch.js'), 'utf8') } });
  const talk = coordinator();
  const port = await talk.listening;
  const config = path.join(p.root, 'elenchos.config.json');
  const settings = JSON.parse(readFileSync(config, 'utf8')) as Record<string, unknown>;
  const agent = {
    type: 'command',
    command: process.execPath,
    args: ['rival-watch.js'],
    timeoutSeconds: 120,
    sandbox,
    env: { PROBE_PORT: String(port) },
  };
  settings.agents = { a: agent, b: agent };
  writeFileSync(config, JSON.stringify(settings));
  gitSync(p.root, 'commit', '-qam', `watching rivals ${sandbox}`);
  giveTo(who, p.root, p.home);
  const aBlob = execFileSync('git', ['hash-object', '--stdin'], { input: 'what a wrote\n', encoding: 'utf8' }).trim();
  const cli = startCliAs(who, ['run', 'tasks/add-task.json', '--agents', 'a,b', '--parallel', '2'], p.root, p.env);
  const failed = cli.exited.then((end) => Promise.reject(new Error(`the run ended first: ${end.stdout}${end.stderr}`)));
  try {
    await Promise.race([talk.staged, failed]);
    // Both turns go on, each candidate's work staged (in its quarantine with the sandbox).
    const during = await Promise.race([talk.probe('b'), failed]);
    talk.exit('a');
    // a's turn is over: its objects are checked and settled, wherever they go.
    const objects = path.join(p.root, '.git/objects');
    const loose = path.join(aBlob.slice(0, 2), aBlob.slice(2));
    const isSettled = () =>
      existsSync(path.join(objects, loose)) ||
      (existsSync(path.join(objects, 'elenchos-private')) &&
        readdirSync(path.join(objects, 'elenchos-private')).some((run) =>
          existsSync(path.join(objects, 'elenchos-private', run, 'held', loose)),
        ));
    await settled(isSettled, "a's objects were settled", cli.exited);
    const after = await Promise.race([talk.probe('b'), failed]);
    talk.exit('b');
    const end = await cli.exited;
    expect(processesInside(p.root)).toEqual([]);
    return { during, after, end, root: p.root, aBlob };
  } finally {
    talk.close();
  }
}

describe.skipIf(!existsSync('/usr/bin/bwrap'))(
  'best of N in parallel: a candidate cannot copy its rival through git objects',
  { timeout: 300_000 },
  () => {
    it("without a sandbox, candidate b finds a's staged blob in the store and reads a's worktree (documented, docs/best-of.md)", async () => {
      const { during, after } = await watchingRivals('none', WHO[0]!);
      expect(during).toMatchObject({ rivalBlobFile: true, gitReadsRival: true, readRivalWorktree: true });
      expect(after).toMatchObject({ rivalBlobFile: true, gitReadsRival: true });
    });

    it.each(WHO)(
      "with bwrap, as %s, candidate b sees neither a's quarantine, nor a's objects once a's turn is over, nor a's worktree",
      async (who) => {
        const { during, after, end, root, aBlob } = await watchingRivals('bwrap', who);
        // Before: during, a's quarantine (objects/incoming-*) was listed and its blob read; after, a's blob was in the store.
        for (const probe of [during, after])
          expect(probe).toEqual({ foreignObjectFolders: 0, rivalBlobFile: false, gitReadsRival: false, readRivalWorktree: false });
        expect(end.code, end.stdout + end.stderr).toBe(0);
        // The best-of run is over: every candidate's objects joined the store, nothing of theirs is left aside.
        expect(gitRead(root, 'cat-file', 'blob', aBlob)).toBe('what a wrote\n');
        expect(readdirSync(path.join(root, '.git/objects/elenchos-private'))).toEqual([]);
      },
    );
  },
);
