// The process table where /proc cannot be read: ps (procps here, macOS's through its fake), lsof for what a
// process holds, and "unavailable" where neither lists our own process. Real processes and real tools, each
// fallback reached through the table's own sources (a /proc root that lists nobody, another ps, no lsof).
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killEscapedProcesses, PROCESS_TAG_ENV, scanEscapedProcesses } from '../../src/process/escaped-processes.js';
import { parseLsofFields } from '../../src/process/lsof-files.js';
import { compareStarts, readProcessTable, startTimeOf } from '../../src/process/process-table.js';
import { epochStart, parsePsLines } from '../../src/process/ps-table.js';
import { FIXTURES } from '../helpers/project.js';
import { tempDir } from '../helpers/temp.js';

const MACOS_PS = path.join(FIXTURES, 'bin/macos-ps');
const MACOS_LSOF = path.join(FIXTURES, 'bin/macos-lsof');
/** A folder standing for a /proc that lists nobody (a tmpfs over /proc, or none at all). */
const noProc = () => tempDir('elenchos-noproc-');

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** A script standing for a ps that behaves some way. */
function script(body: string): string {
  const file = path.join(tempDir('elenchos-ps-'), 'ps');
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

/** A detached node process (its own session), in `cwd`, with `env`, that writes `ready` once it runs. */
async function daemon(options: { cwd: string; env: NodeJS.ProcessEnv; hold?: string }): Promise<number> {
  const ready = path.join(tempDir('elenchos-ready-'), 'ready');
  const open = options.hold ? `require('fs').openSync(${JSON.stringify(options.hold)}, 'r');` : '';
  const child = spawn(
    process.execPath,
    ['-e', `${open}require('fs').writeFileSync(${JSON.stringify(ready)}, '');setInterval(() => {}, 1000);`],
    {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: 'ignore',
    },
  );
  started.push(child);
  while (!existsSync(ready)) await new Promise((resolve) => setTimeout(resolve, 10));
  return child.pid!;
}

describe('reading ps and lsof', () => {
  it("parses procps's lines (captured from procps-ng 4.0.2 with TZ=UTC), the state's first letter, lstart as seconds", () => {
    const text = [
      '    1     0     0 S<Ll Mon Dec  7 14:56:31 2026 /process_api --firecracker-init --addr 0.0.0.0:2024',
      '    2     0     0 S    Mon Dec  7 14:56:31 2026 [kthreadd]',
      '30398 30392 30392 S    Mon Dec  7 15:33:17 2026 sleep 100',
      'not a line of ps',
    ].join('\n');
    expect(parsePsLines(text)).toEqual([
      {
        pid: 1,
        ppid: 0,
        pgid: 0,
        state: 'S',
        startTime: epochStart('Mon Dec  7 14:56:31 2026'),
        command: '/process_api --firecracker-init --addr 0.0.0.0:2024',
      },
      { pid: 2, ppid: 0, pgid: 0, state: 'S', startTime: epochStart('Mon Dec  7 14:56:31 2026'), command: '[kthreadd]' },
      { pid: 30398, ppid: 30392, pgid: 30392, state: 'S', startTime: epochStart('Mon Dec  7 15:33:17 2026'), command: 'sleep 100' },
    ]);
    expect(epochStart('Mon Dec  7 15:33:17 2026')).toBe(`e${Date.UTC(2026, 11, 7, 15, 33, 17) / 1000}`);
    expect(epochStart('Mon Foo  7 15:33:17 2026')).toBeNull();
  });

  it("parses macOS's lines: lstart padded to 28 columns, a zombie's <defunct>, Mach's state letters", () => {
    // The layout of Apple's ps (adv_cmds-237 print.c, keyword.c): composed from its source, not captured on a Mac.
    const text = [
      '    1     0     1 Ss   Mon Dec  7 14:56:31 2026     /sbin/launchd',
      '  501     1   501 U    Tue Dec  8 09:05:00 2026     /usr/libexec/x --flag',
      '  777   501   501 Z    Tue Dec  8 09:06:00 2026     <defunct>',
    ].join('\n');
    expect(parsePsLines(text).map((r) => [r.pid, r.state, r.command])).toEqual([
      [1, 'S', '/sbin/launchd'],
      [501, 'U', '/usr/libexec/x --flag'],
      [777, 'Z', '<defunct>'],
    ]);
  });

  it("parses lsof's field output (captured from lsof 4.95 on Linux): cwd, root, the executable, open files; never a mapped library", () => {
    const text = [
      'p30398',
      'fcwd',
      'n/work/main',
      'frtd',
      'n/',
      'ftxt',
      'n/usr/bin/sleep',
      'fmem',
      'n/usr/lib/locale/C.utf8/LC_CTYPE',
      'f3',
      'n/srv/held.txt (deleted)',
      'f4',
      'nsocket:[123]',
      'p9',
      'fcwd',
      'n/',
    ].join('\n');
    expect(parseLsofFields(text)).toEqual(
      new Map([
        [30398, { cwd: '/work/main', root: '/', exe: '/usr/bin/sleep', files: ['/srv/held.txt'] }],
        [9, { cwd: '/', root: null, exe: null, files: [] }],
      ]),
    );
  });

  it('orders start times of one clock only: ticks from /proc and seconds from ps are never compared', () => {
    expect(compareStarts('100', '200')).toBe(-1);
    expect(compareStarts('e200', 'e200')).toBe(0);
    expect(compareStarts('200', 'e200')).toBeNull();
    expect(compareStarts('x', '1')).toBeNull();
  });
});

describe.runIf(process.platform === 'linux')('which table, and what it can see', () => {
  it('/proc, where it lists this process', () => {
    const table = readProcessTable({ environment: true, directories: true });
    expect(table).toMatchObject({ source: 'proc', blind: [] });
    expect(table.processes.some((p) => p.pid === process.pid)).toBe(true);
    expect(startTimeOf(process.pid)).toMatch(/^\d+$/);
  });

  it('the real ps where /proc lists nobody: procps shows the environment (with `e`), lsof what each process holds', () => {
    const table = readProcessTable({ environment: true, directories: true }, { procRoot: noProc() });
    expect(table.source, table.why).toBe('ps');
    expect(table.blind).toEqual([]);
    expect(table.why).toMatch(/does not list this process \(ENOENT\); \/bin\/ps lists it/);
    expect(table.processes.find((p) => p.pid === process.pid)?.startTime).toMatch(/^e\d+$/);
    expect(table.environEntries(process.pid, 'PATH=')).toEqual([`PATH=${process.env.PATH}`]);
    expect(table.held(process.pid)?.cwd).toBe(process.cwd());
  });

  it("macOS's ps (its fake), where /proc lists nobody: the environment with -E; no lsof: held directories unseen, and said", () => {
    const table = readProcessTable({ environment: true, directories: true }, { procRoot: noProc(), ps: MACOS_PS, lsof: null });
    expect(table.source, table.why).toBe('ps');
    expect(table.blind).toEqual(['directories']);
    expect(table.why).toMatch(/no lsof at .*: what a process holds cannot be seen/);
    expect(table.environEntries(process.pid, 'PATH=')).toEqual([`PATH=${process.env.PATH}`]);
    expect(table.held(process.pid)).toBeNull();
  });

  it('unavailable where no ps can list us: none there, one that fails as procps does without /proc, one that lists others only', () => {
    const none = readProcessTable({ environment: true }, { procRoot: noProc(), ps: null });
    expect(none).toMatchObject({ source: 'unavailable', processes: [] });
    expect(none.why).toMatch(/does not list this process \(ENOENT\); no ps at \/bin\/ps or \/usr\/bin\/ps/);
    // procps-ng 4.0.2 under a tmpfs over /proc, as captured here: its words on stderr, exit 47.
    const failing = readProcessTable(
      {},
      { procRoot: noProc(), ps: script("echo 'Error, do this: mount -t proc proc /proc' >&2; exit 47") },
    );
    expect(failing.source).toBe('unavailable');
    expect(failing.why).toMatch(/exited 47 \(Error, do this: mount -t proc proc \/proc\)/);
    // A ps (of another pid namespace, say) that lists a process but not this one sees nobody of ours.
    const others = readProcessTable(
      {},
      { procRoot: noProc(), ps: script("echo '    1     0     1 Ss   Mon Dec  7 14:56:31 2026 /sbin/init'") },
    );
    expect(others.source).toBe('unavailable');
    expect(others.why).toMatch(/does not list this process$/);
  });
});

describe.runIf(process.platform === 'linux')('escaped processes through ps', () => {
  it('finds by tag, by cwd, by an open file through macOS ps and lsof (fakes); never an untagged outsider', async () => {
    const worktree = tempDir('elenchos-worktree-');
    const outside = tempDir('elenchos-outside-');
    mkdirSync(path.join(worktree, 'src'));
    writeFileSync(path.join(worktree, 'src/held.txt'), 'x');
    const tag = `run-${process.pid}/1/agent`;
    const tagged = await daemon({ cwd: outside, env: { [PROCESS_TAG_ENV]: tag } });
    const inside = await daemon({ cwd: path.join(worktree, 'src'), env: {} });
    const holder = await daemon({ cwd: outside, env: {}, hold: path.join(worktree, 'src/held.txt') });
    const stranger = await daemon({ cwd: outside, env: { [PROCESS_TAG_ENV]: `${tag}x` } });
    const sources = { procRoot: noProc(), ps: MACOS_PS, lsof: MACOS_LSOF };
    const scan = scanEscapedProcesses({ tags: [tag], directories: [worktree] }, sources);
    expect(scan.table).toMatchObject({ source: 'ps', blind: [] });
    const found = new Map(scan.found.map((p) => [p.pid, p.found]));
    expect(found.get(tagged)).toEqual(['marker']);
    expect(found.get(inside)).toEqual(['cwd']);
    expect(found.get(holder)).toEqual(['open-file']);
    expect(found.has(stranger)).toBe(false);

    // Without lsof the tag still finds its process; the one in the worktree without it is not seen, and the scan says so.
    const blind = scanEscapedProcesses({ tags: [tag], directories: [worktree] }, { ...sources, lsof: null });
    expect(blind.table.blind).toEqual(['directories']);
    expect(blind.found.map((p) => p.pid)).toEqual([tagged]);

    const killed = await killEscapedProcesses({ tags: [tag], directories: [worktree] }, 3000, sources);
    expect(killed.killed.map((p) => p.pid).sort()).toEqual([tagged, inside, holder].sort());
    expect(killed.survivors).toEqual([]);
    expect(killed.table.source).toBe('ps');
  });

  it('an unavailable table finds nothing and says so: the empty list is no all-clear', async () => {
    const worktree = tempDir('elenchos-worktree-');
    const tag = `run-${process.pid}/2/agent`;
    const tagged = await daemon({ cwd: worktree, env: { [PROCESS_TAG_ENV]: tag } });
    const result = await killEscapedProcesses({ tags: [tag], directories: [worktree] }, 3000, { procRoot: noProc(), ps: null });
    expect(result).toMatchObject({ killed: [], survivors: [], table: { source: 'unavailable' } });
    // It still runs: nothing could see it.
    expect(() => process.kill(tagged, 0)).not.toThrow();
  });
});
