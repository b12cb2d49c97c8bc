// The watchdog (src/process/watchdog.ts): of a process SIGKILLed with children running, one of them
// started before a watchdog was lost and replaced; and one whose pipe is held open by someone else.
// Runs the built code (npm run build first).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { waitForFile, waitUntil, watchdogsOf } from '../helpers/live-cli.js';
import { FIXTURES } from '../helpers/project.js';
import { tempDir } from '../helpers/temp.js';
import { WATCHDOG_MAIN } from '../../src/process/watchdog.js';

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

it('a watchdog killed by someone is replaced, and the replacement stops every group, the older ones too', async () => {
  const out = path.join(tempDir('elenchos-watchdog-'), 'pids');
  const owner = spawn(process.execPath, [path.join(FIXTURES, 'watchdog/owner.mjs'), out], { stdio: 'ignore' });
  const exited = new Promise((resolve) => owner.on('exit', resolve));
  let pids: number[] = [];
  try {
    await waitForFile(out, 20_000);
    pids = readFileSync(out, 'utf8').trim().split(' ').map(Number);
    const [first, second, lost, replacement] = pids as [number, number, number, number];
    expect(alive(lost)).toBe(false);
    expect(replacement).not.toBe(lost);
    expect(watchdogsOf(owner.pid!)).toEqual([replacement]);
    expect([first, second].every(alive)).toBe(true);

    owner.kill('SIGKILL');
    await exited;
    await waitUntil(() => !alive(first) && !alive(second), 'a child outlived its SIGKILLed owner');
    await waitUntil(() => !alive(replacement), 'the watchdog outlived its job');
  } finally {
    owner.kill('SIGKILL');
    for (const pid of pids.filter(alive)) process.kill(pid, 'SIGKILL');
  }
});

function startTimeOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

/** A process idling in a group of its own (what the spawn helper makes of every child). */
function idleGroup(): number {
  const child = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
  child.unref();
  return child.pid!;
}

/**
 * An owner process whose /proc start time is after `pid`'s. Start times count clock ticks (10 ms): one
 * started in the same tick is as old, and could be a child of it, so it is replaced until a tick has passed.
 */
async function ownerStartedAfter(pid: number): Promise<ChildProcess> {
  for (;;) {
    const owner = spawn(process.execPath, ['-e', 'process.stdin.resume()'], { stdio: ['pipe', 'ignore', 'ignore'] });
    await new Promise((resolve) => owner.once('spawn', resolve));
    if (BigInt(startTimeOf(owner.pid!)) > BigInt(startTimeOf(pid))) return owner;
    owner.kill('SIGKILL');
    await new Promise((resolve) => owner.once('exit', resolve));
  }
}

it('its pipe still held open by someone: it ends anyway once its owner is gone, and never stops a group older than the owner', async () => {
  const older = idleGroup(); // started before the owner: no child of it, whatever a line says
  const owner = await ownerStartedAfter(older);
  const ownerTag = `${owner.pid}/${startTimeOf(owner.pid!)}`;
  const child = idleGroup();
  const dog = spawn(process.execPath, [WATCHDOG_MAIN, ownerTag], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  try {
    await waitUntil(() => existsSync(`/proc/${child}`) && existsSync(`/proc/${older}`), 'the groups never started');
    dog.stdin!.write(`+${child} ${startTimeOf(child)}\n+${older} ${startTimeOf(older)}\n`);
    owner.stdin!.end(); // the owner ends; the watchdog's pipe (ours here) stays open
    await new Promise((resolve) => owner.on('exit', resolve));
    await waitUntil(() => !alive(child), 'the group outlived its owner while the pipe was held');
    await waitUntil(() => dog.exitCode !== null, 'the watchdog outlived its job');
    expect(alive(older)).toBe(true);
  } finally {
    dog.kill('SIGKILL');
    for (const pid of [older, child].filter(alive)) process.kill(pid, 'SIGKILL');
  }
});
