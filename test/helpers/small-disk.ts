// A real full disk for tests: a small tmpfs mounted over a project's `.elenchos` (root only; tests
// that need it are skipped where mounting is not allowed).
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { processesInside } from './project.js';
import { tempDir } from './temp.js';

/** A small tmpfs over `.elenchos` (root only); null when this machine does not allow mounting one. */
export function mountSmallDisk(root: string, size: string): string | null {
  const dir = path.join(root, '.elenchos');
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    return null;
  }
}

/** Unmounts it (lazily), after killing whatever still runs inside the project. */
export function unmount(dir: string, root: string): void {
  for (const pid of processesInside(root)) process.kill(pid, 'SIGKILL');
  execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
}

/** True where a tmpfs can be mounted (probed once per test file). */
export function canMountSmallDisk(): boolean {
  const probe = tempDir('elenchos-mount-probe-');
  const dir = mountSmallDisk(probe, '64k');
  if (dir) unmount(dir, probe);
  return dir !== null;
}
