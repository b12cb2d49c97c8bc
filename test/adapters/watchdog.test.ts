// The watchdog (src/process/watchdog.ts) of a process SIGKILLed with children running, one of them
// started before a watchdog was lost and replaced. Runs the built code (npm run build first).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { waitForFile, waitUntil, watchdogsOf } from '../helpers/live-cli.js';
import { FIXTURES } from '../helpers/project.js';
import { tempDir } from '../helpers/temp.js';

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
