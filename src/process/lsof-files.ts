// What each process holds (its cwd, root, executable and open files) from `lsof`, where there is no
// /proc to read it from: no POSIX tool tells a process's cwd, and lsof does on macOS (where it ships) and
// Linux alike. Its field output (`-F pfn`: a `p<pid>` line, then `f<descriptor>` and `n<name>` per file)
// is the same on both.
import { SYSTEM_PATH } from './system-path.js';
import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';

/** Where lsof is looked for: system folders only, as ps (ps-table.ts). */
export const LSOF_PATHS = ['/usr/sbin/lsof', '/usr/bin/lsof', '/sbin/lsof', '/bin/lsof'] as const;

/** What one process holds, as absolute paths. */
export interface HeldPaths {
  cwd: string | null;
  root: string | null;
  exe: string | null;
  files: string[];
}

export type LsofFiles = { ok: true; held: Map<number, HeldPaths> } | { ok: false; why: string };

/** The first of LSOF_PATHS that exists, or null. */
export function findLsof(): string | null {
  return LSOF_PATHS.find((p) => existsSync(p)) ?? null;
}

/** Every process's held paths, or why lsof cannot tell (it failed, or it does not show our own cwd). */
export function readLsofFiles(lsof: string): LsofFiles {
  // spawnSync, as ps-table.ts says why. -n -P: no name lookups; -w: no warnings on stderr.
  const result = spawnSync(lsof, ['-n', '-P', '-w', '-F', 'pfn'], {
    encoding: 'utf8',
    env: { PATH: SYSTEM_PATH, LC_ALL: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 30_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.error) return { ok: false, why: `${lsof}: ${(result.error as NodeJS.ErrnoException).code ?? result.error.message}` };
  // lsof exits 1 when some file could not be read (another user's process): what it printed still holds.
  const held = parseLsofFields(result.stdout ?? '');
  const own = held.get(process.pid)?.cwd;
  if (own === undefined || own === null || own !== realCwd())
    return { ok: false, why: `${lsof} exited ${result.status ?? result.signal} without showing this process's working directory` };
  return { ok: true, held };
}

/** Parses lsof's `-F pfn` output; a deleted file's name ("… (deleted)") still counts as where it was. */
export function parseLsofFields(text: string): Map<number, HeldPaths> {
  const held = new Map<number, HeldPaths>();
  let current: HeldPaths | null = null;
  let fd = '';
  for (const line of text.split('\n')) {
    const field = line[0];
    const value = line.slice(1);
    if (field === 'p') {
      current = { cwd: null, root: null, exe: null, files: [] };
      held.set(Number(value), current);
    } else if (field === 'f') fd = value;
    else if (field === 'n' && current && value.startsWith('/')) {
      const name = value.replace(/ \(deleted\)$/, '');
      if (fd === 'cwd') current.cwd = name;
      else if (fd === 'rtd') current.root = name;
      // The first `txt` is the executable; macOS lists the libraries it loaded after it: files it holds.
      else if (fd === 'txt' && current.exe === null) current.exe = name;
      else if (fd === 'txt' || /^\d+$/.test(fd)) current.files.push(name);
    }
  }
  return held;
}

// This process's own working folder as the kernel holds it (what lsof must list for us), not a caller's cwd option.
function realCwd(): string {
  // eslint-disable-next-line no-restricted-properties -- the process's own folder is the fact being checked
  const own = process.cwd();
  try {
    return realpathSync(own);
  } catch {
    return own;
  }
}
