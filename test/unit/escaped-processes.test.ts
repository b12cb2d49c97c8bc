// Finding and killing processes that left their group: real processes, real /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killEscapedProcesses, PROCESS_TAG_ENV, scanEscapedProcesses } from '../../src/process/escaped-processes.js';
import { tempDir } from '../helpers/temp.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.pid && child.exitCode === null) child.kill('SIGKILL');
});

/** A detached node process (its own session: setsid), told where to sit and what to carry. */
async function daemon(options: { cwd: string; env: NodeJS.ProcessEnv; hold?: string; ready: string }): Promise<number> {
  const script = `${options.hold ? `require('fs').openSync(${JSON.stringify(options.hold)}, 'r');` : ''}require('fs').writeFileSync(${JSON.stringify(options.ready)}, '');setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', script], { cwd: options.cwd, env: options.env, detached: true, stdio: 'ignore' });
  started.push(child);
  // Wait for the daemon to say it is in place (a marker), not for a time.
  while (!existsSync(options.ready)) await new Promise((resolve) => setTimeout(resolve, 10));
  return child.pid!;
}

const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
};

describe('escaped processes', () => {
  it('finds a process by its inherited tag, by its cwd, by an open file; never an untagged outsider', async () => {
    const worktree = tempDir('elenchos-worktree-');
    const outside = tempDir('elenchos-outside-');
    mkdirSync(path.join(worktree, 'src'));
    writeFileSync(path.join(worktree, 'src/held.txt'), 'x');
    const tag = `run-${process.pid}/1/agent`;
    const tagged = await daemon({ cwd: outside, env: { [PROCESS_TAG_ENV]: tag }, ready: path.join(outside, 'a') });
    const inside = await daemon({ cwd: path.join(worktree, 'src'), env: {}, ready: path.join(outside, 'b') });
    const holder = await daemon({ cwd: outside, env: {}, hold: path.join(worktree, 'src/held.txt'), ready: path.join(outside, 'c') });
    const stranger = await daemon({ cwd: outside, env: { [PROCESS_TAG_ENV]: `${tag}x` }, ready: path.join(outside, 'd') });

    const found = scanEscapedProcesses({ tags: [tag], directories: [worktree] }).found;
    const why = Object.fromEntries(found.map((p) => [p.pid, p.found]));
    expect(why[tagged]).toEqual(['marker']);
    expect(why[inside]).toEqual(['cwd']);
    expect(why[holder]).toEqual(['open-file']);
    expect(why[stranger]).toBeUndefined();
    // gc's view of a dead run: every tag of the run, whatever the attempt or role.
    const byRun = scanEscapedProcesses({ tagPrefixes: [`run-${process.pid}/`] }).found.map((p) => p.pid);
    expect(byRun).toEqual(expect.arrayContaining([tagged, stranger]));
    expect(byRun).not.toContain(inside);
    expect(scanEscapedProcesses({ tagPrefixes: [''] }).found).toEqual([]);
    expect(found.find((p) => p.pid === tagged)?.command).toContain('setInterval');
    // Nothing to look for, nothing found; and never ourselves, though our environment could match.
    expect(scanEscapedProcesses({}).found).toEqual([]);
    expect(scanEscapedProcesses({ directories: [process.cwd()] }).found.map((p) => p.pid)).not.toContain(process.pid);

    const result = await killEscapedProcesses({ tags: [tag], directories: [worktree] });
    expect(result.killed.map((p) => p.pid).sort()).toEqual([tagged, inside, holder].sort());
    expect(result.survivors).toEqual([]);
    for (const pid of [tagged, inside, holder]) expect(alive(pid)).toBe(false);
    expect(alive(stranger)).toBe(true);
  });

  it('catches the children a process forks while it is being stopped (frozen first, then killed)', async () => {
    const worktree = tempDir('elenchos-worktree-');
    // A parent that keeps forking children into the worktree: each generation must be found.
    const script =
      "const {spawn}=require('child_process');setInterval(()=>spawn(process.execPath,['-e','setInterval(()=>{},1000)'],{detached:true,stdio:'ignore'}).unref(),5);require('fs').writeFileSync('ready','')";
    const child = spawn(process.execPath, ['-e', script], { cwd: worktree, detached: true, stdio: 'ignore' });
    started.push(child);
    while (!existsSync(path.join(worktree, 'ready'))) await new Promise((resolve) => setTimeout(resolve, 10));
    const result = await killEscapedProcesses({ directories: [worktree] });
    expect(result.killed.map((p) => p.pid)).toContain(child.pid);
    expect(result.survivors).toEqual([]);
    expect(scanEscapedProcesses({ directories: [worktree] }).found).toEqual([]);
  });
});
