// `agent.sandbox: bwrap`: the agent runs inside bubblewrap, seeing the filesystem read-only except its
// worktree, none of the main checkout, no other process, and none of the verifier's credentials.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { privateObjectsDir } from '../git/object-quarantine.js';

/** Where bubblewrap is expected (Debian/Ubuntu `apt-get install bubblewrap`). */
export const BWRAP = '/usr/bin/bwrap';

/** Home-relative paths hidden from a sandboxed agent: the verifier's credentials and the usual credential stores. */
export const HIDDEN_HOME_PATHS = [
  '.testmuai',
  '.ssh',
  '.aws',
  '.gnupg',
  '.config/gh',
  '.docker',
  '.kube',
  '.netrc',
  '.git-credentials',
  '.npmrc',
];

/**
 * What every sandbox of ours (the agent's, the app's, setup's) runs with, whoever starts Elenchos. Root
 * keeps every capability inside bubblewrap unless it is told otherwise, and could then unmount what hides
 * the checkout, remount a read-only bind writable or reach the host's /proc beneath the sandbox's own:
 * a user namespace of its own and no capability at all (`--cap-drop ALL`, also the bounding set; bwrap
 * sets no_new_privs, so no setuid program gives one back). The mounts it sees come from a more privileged
 * namespace and are locked: a nested user namespace cannot undo them either. Its own PID and IPC
 * namespaces, ended with Elenchos (docs/security.md#the-agent-sandbox).
 */
export const SANDBOX_ISOLATION: readonly string[] = [
  '--unshare-user',
  '--cap-drop',
  'ALL',
  '--unshare-pid',
  '--unshare-ipc',
  '--die-with-parent',
];

/** Where a sandboxed agent finds its prompt (ELENCHOS_PROMPT_FILE points there). */
export const SANDBOX_PROMPT_FILE = '/tmp/elenchos/prompt.md';

export interface SandboxOptions {
  /** The agent's worktree: its cwd and the only project folder it may write. */
  worktree: string;
  /** The main checkout (with `.elenchos/`): hidden. */
  checkout: string;
  /** The prompt file (in the hidden evidence folder): shown read-only at SANDBOX_PROMPT_FILE instead. */
  promptFile: string;
  /** The agent's own state under HOME that it must write (e.g. `.claude`), when it exists. */
  writableHome: readonly string[];
  home: string | undefined;
  /** The turn's quarantine folder for new git objects (src/git/object-quarantine.ts); without it, git cannot write objects at all. */
  objectQuarantine?: string;
  /** The run's held objects (what its earlier turns committed, not yet in the store): readable, an alternate. */
  heldObjects?: string;
  /** Key files and folders to hide as well (util/secret-paths.ts: secretPathsToHide). */
  hidden?: readonly string[];
}

let empty: string | null = null;

/**
 * An empty read-only regular file, bound over a hidden file of the home (`.npmrc`, `.netrc`): read, it is
 * empty, as if the user had none. Not /dev/null: bound into the sandbox a device node cannot be opened
 * (the mount is nodev), and yarn 1 stops at the EACCES from `~/.npmrc` (`yarn dev`, the app's command in
 * a yarn repository, never started; pnpm warned). One per process, removed at its exit.
 */
export function emptyFile(): string {
  if (empty && existsSync(empty)) return empty;
  const dir = mkdtempSync(path.join(tmpdir(), 'elenchos-empty-'));
  const file = path.join(dir, 'empty');
  writeFileSync(file, '');
  chmodSync(file, 0o444);
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  empty = file;
  return file;
}

/** `bwrap <args> -- command args`: the command wrapped in the sandbox (see docs/security.md for what it isolates). */
export function sandboxCommand(command: string, args: readonly string[], options: SandboxOptions): { command: string; args: string[] } {
  const out = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  out.push('--tmpfs', options.checkout);
  // git in the worktree needs the repository it belongs to: its own admin folder writable, the rest (refs,
  // config, hooks, the object store) read-only, so the agent cannot plant a hook, move a branch or replace
  // an object; its new objects go to the quarantine folder, checked and copied in after its turn.
  const git = worktreeGitDirs(options.worktree);
  if (git) {
    out.push('--ro-bind', git.common, git.common);
    out.push(...objectStoreBinds(git.common, options.objectQuarantine ?? null, options.heldObjects ?? null));
    // Other worktrees' admin folders (another best-of candidate's index, a pooled slot's) are out of sight:
    // only this worktree's own is mounted over an empty, read-only `worktrees/`.
    const others = path.dirname(git.admin);
    const hideOthers = path.basename(others) === 'worktrees' && path.dirname(others) === git.common;
    if (hideOthers) out.push('--tmpfs', others);
    out.push('--bind', git.admin, git.admin);
    if (hideOthers) out.push('--remount-ro', others);
  }
  out.push('--bind', options.worktree, options.worktree);
  if (options.home) {
    for (const hidden of HIDDEN_HOME_PATHS) {
      const full = path.join(options.home, hidden);
      if (!existsSync(full)) continue;
      // A folder becomes an empty tmpfs; a file an empty one (hiddenHomeFile).
      out.push(...(isDirectory(full) ? ['--tmpfs', full] : ['--ro-bind', emptyFile(), full]));
    }
    for (const own of options.writableHome) {
      const full = path.join(options.home, own);
      if (existsSync(full)) out.push('--bind', full, full);
    }
  }
  for (const full of options.hidden ?? []) {
    // Inside the checkout: hidden with it already.
    if (full === options.checkout || full.startsWith(`${options.checkout}${path.sep}`)) continue;
    out.push(...(isDirectory(full) ? ['--tmpfs', full] : ['--ro-bind', '/dev/null', full]));
  }
  // The checkout's tmpfs holds only the mount points above: read-only, so nothing written there can pass for the checkout.
  out.push('--remount-ro', options.checkout);
  out.push('--ro-bind', options.promptFile, SANDBOX_PROMPT_FILE, '--setenv', 'ELENCHOS_PROMPT_FILE', SANDBOX_PROMPT_FILE);
  out.push(...SANDBOX_ISOLATION, '--chdir', options.worktree, '--', command, ...args);
  return { command: BWRAP, args: out };
}

/**
 * bwrap arguments for a repository's object store (`<common>/objects`): read-only whatever was bound
 * before, every run's private folder (`objects/elenchos-private/`: quarantines and held objects, a best-of
 * rival's included) an empty tmpfs, and only this run's bound back: its held objects read-only, with a
 * quarantine that folder writable as git's object directory, the store and the held objects its
 * alternates, so `git add`/`commit`/`stash` write there. Without one (the app), git reads
 * objects and writes none. For every sandbox that shows a repository.
 */
export function objectStoreBinds(gitCommon: string, quarantine: string | null, held: string | null): string[] {
  const objects = path.join(gitCommon, 'objects');
  if (!existsSync(objects)) return [];
  const hidden = privateObjectsDir(objects);
  const out = ['--ro-bind', objects, objects, '--tmpfs', hidden];
  const own = held !== null && existsSync(held) ? held : null;
  if (own) out.push('--ro-bind', own, own);
  if (quarantine) out.push('--bind', quarantine, quarantine);
  out.push('--remount-ro', hidden);
  const alternates = [objects, ...(own ? [own] : [])].join(path.delimiter);
  if (quarantine) out.push('--setenv', 'GIT_OBJECT_DIRECTORY', quarantine);
  // The app writes no object, but reads its run's commits like the agent (a build that asks git for HEAD).
  if (quarantine || own) out.push('--setenv', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', quarantine ? alternates : own!);
  return out;
}

/** The worktree's admin folder (`.git/worktrees/<name>`) and the repository's common git folder, from its `.git` file. */
function worktreeGitDirs(worktree: string): { admin: string; common: string } | null {
  try {
    const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(path.join(worktree, '.git'), 'utf8'))?.[1]?.trim();
    if (!pointer) return null;
    const admin = path.resolve(worktree, pointer);
    const common = path.resolve(admin, readFileSync(path.join(admin, 'commondir'), 'utf8').trim());
    return { admin, common };
  } catch {
    return null; // not a linked worktree (the checkout itself): nothing more to show
  }
}

function isDirectory(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
