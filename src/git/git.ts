// The only place that runs git, through simple-git: text or the bytes git wrote. The one exception is a patch
// streamed into a file (gitToFile), which simple-git would hold in memory whole. Every call starts from gitEnv,
// runs with SAFE_GIT_CONFIG and fails through gitFailure (a caller adds only what its command needs: a reset's
// core.sparseCheckout=false).
// Failures read as one line naming the command, the folder and git's words.
import { AsyncLocalStorage } from 'node:async_hooks';
import path from 'node:path';
import { DiskFullError, ElenchosError } from '../errors.js';

export class GitError extends ElenchosError {
  override readonly code = 'ELENCHOS_GIT';
}

export interface GitOptions {
  cwd: string;
  input?: string;
  /** The environment git starts from; unset, the caller's (withGitEnvironment). */
  env?: NodeJS.ProcessEnv;
  /** An index file of ours to read instead of the worktree's (`GIT_INDEX_FILE`, which the environment never sets). */
  indexFile?: string;
}

// Variables that point git at another repository (GIT_DIR in a hook's environment) or make it run a
// program of its own (EDITOR, PAGER, GIT_SSH, GIT_EXTERNAL_DIFF): no run may depend on them. The rest
// (identity, GIT_CONFIG_GLOBAL and the like) is the user's own set-up and passes.
const DROPPED =
  /^(git_(dir|work_tree|index_file|object_directory|alternate_object_directories|common_dir|namespace|editor|pager|sequence_editor|ssh|ssh_command|askpass|proxy_command|external_diff|exec_path|template_dir)|editor|visual|pager|ssh_askpass)$/i;

/**
 * Settings every git call of ours runs with, whatever the repository's config says. The agent runs as the
 * user and can write `.git/config` (shared by every worktree) and `.git/hooks/`: without these, git would
 * run its `core.fsmonitor` command during our `git status`/`ls-files`/`diff` (code of the agent, started
 * by us after its processes were swept), its `post-checkout` hook on our `git worktree add`, or answer
 * from an untracked cache or stat data it was told to trust. Filters (`filter.<x>.clean`) cannot be
 * switched off by name: a change to the config or attributes is caught by `src/git/git-state.ts` instead.
 */
export const SAFE_GIT_CONFIG: readonly string[] = [
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'core.untrackedCache=false',
  'core.ignoreStat=false',
  'core.trustctime=true',
  'core.checkStat=default',
  // Both map an id to data without reading the object (a commit's tree, an object's place in a pack): files
  // an agent without the sandbox can forge in `objects/`. Speed-ups only; our calls do without them.
  'core.commitGraph=false',
  'core.multiPackIndex=false',
];

/** The same settings as `-c` arguments, for the patch streamed through execa (gitToFile). */
export const SAFE_GIT_ARGS: readonly string[] = SAFE_GIT_CONFIG.flatMap((setting) => ['-c', setting]);

// Held object folders of this process's runs (object-quarantine.ts): every git call of ours reads them as
// alternates, so a run's own commits resolve before they join the store. Elenchos sees every run's; a
// sandbox sees only its own.
const sharedObjects = new Set<string>();

/** Every git call of this process reads objects from `dir` too, until unshareObjects. */
export function shareObjects(dir: string): void {
  sharedObjects.add(dir);
}

/** Undoes shareObjects (the folder's objects joined the store, or it is gone). */
export function unshareObjects(dir: string): void {
  sharedObjects.delete(dir);
}

// The caller's environment (the CLI's, or what a library caller passed as `env`), set once where a command
// starts: git reads the user's identity and global config through it. An AsyncLocalStorage like the run
// scope (process/run-scope.ts), so the dozens of git calls below a command need not each be handed it.
const callerEnvironments = new AsyncLocalStorage<NodeJS.ProcessEnv>();

/**
 * Runs `fn` with `env` as the environment every git call under it starts from (less DROPPED). Outside
 * any (a module called on its own, as a unit test does), git starts from an empty environment: no
 * identity, no global config, never this process's own.
 */
export function withGitEnvironment<T>(env: NodeJS.ProcessEnv, fn: () => T): T {
  return callerEnvironments.run(env, fn);
}

/** The environment git calls start from here: the innermost withGitEnvironment's, else an empty one. */
export function gitCallerEnvironment(): NodeJS.ProcessEnv {
  return callerEnvironments.getStore() ?? {};
}

// A fixed locale keeps messages parseable; no prompt can ever block a run waiting for a password.
// Replace objects (`refs/replace/`, `git replace`) would make HEAD's tree read differently from what its
// commit names: our calls see the objects as they are.
function gitEnv(options: GitOptions): NodeJS.ProcessEnv {
  const kept = Object.entries(options.env ?? gitCallerEnvironment()).filter(([key]) => !DROPPED.test(key));
  const index = options.indexFile === undefined ? {} : { GIT_INDEX_FILE: options.indexFile };
  const alternates = sharedObjects.size === 0 ? {} : { GIT_ALTERNATE_OBJECT_DIRECTORIES: [...sharedObjects].join(path.delimiter) };
  return { ...Object.fromEntries(kept), GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', GIT_NO_REPLACE_OBJECTS: '1', ...index, ...alternates };
}

// What git prints when a write fails for lack of space (it exits 128 and says so only in words):
// `fatal: sha1 file '<f>' write error. Out of diskspace` (csum-file.c: packs, the index, commit-graph),
// `error: unable to write file <f>` (a checkout's file), strerror(ENOSPC) or (EDQUOT) after any other
// `fatal: …: ` (a loose object, a temporary file, `index.lock`).
const GIT_DISK_FULL = /Out of diskspace|No space left on device|Disk quota exceeded|unable to write file\b/i;

/** True when git's stderr says a write failed for lack of space (or quota). */
export function gitSaysDiskFull(stderr: string): boolean {
  return GIT_DISK_FULL.test(stderr);
}

/** The subcommand and its first arguments, without our `-c name=value` settings in front. */
function commandLine(args: readonly string[]): string {
  let i = 0;
  while (args[i] === '-c' && i + 1 < args.length) i += 2;
  return args.slice(i, i + 3).join(' ');
}

/**
 * One line naming the command, the folder and git's words. A write that failed for lack of space is a
 * DiskFullError (its cause carries ENOSPC, so `isDiskFull` sees it): the run ends ERROR DISK_FULL,
 * not INTERNAL_ERROR.
 */
function gitFailure(args: readonly string[], cwd: string, stderr: string, error: unknown): ElenchosError {
  const detail = stderr.trim().split('\n').slice(-3).join(' ') || (error instanceof Error ? error.message : String(error));
  if (gitSaysDiskFull(stderr)) {
    const cause = Object.assign(new Error(detail, { cause: error }), { code: 'ENOSPC' });
    return new DiskFullError(`git ${commandLine(args)} failed in ${cwd}: no space left on the device (${detail})`, {
      cause,
      details: ['free some space on that disk, then run it again'],
    });
  }
  return new GitError(`git ${commandLine(args)} failed in ${cwd}: ${detail}`, { cause: error });
}

/** Runs `git args` in `cwd` and returns stdout; throws GitError with git's stderr on failure. */
export async function git(args: readonly string[], options: GitOptions): Promise<string> {
  return (await runGit(args, options)).text;
}

/** Like `git` but returns stdout as bytes: `-z` output holds paths that are not valid UTF-8. */
export async function gitBytes(args: readonly string[], options: GitOptions): Promise<Buffer> {
  return (await runGit(args, options)).bytes;
}

/** One git process through simple-git: its output as text, and as the bytes git wrote (read where simple-git hands them over). */
async function runGit(args: readonly string[], options: GitOptions): Promise<{ text: string; bytes: Buffer }> {
  // Loaded on first use: the commands that never touch git do not pay for it.
  const { simpleGit } = await import('simple-git');
  let stderr = '';
  let bytes = Buffer.alloc(0);
  try {
    const env = gitEnv(options);
    const client = simpleGit({
      baseDir: options.cwd,
      trimmed: false,
      config: [...SAFE_GIT_CONFIG],
      // simple-git guards against untrusted callers; this environment is the user's own (less DROPPED).
      allowEnvironment: Object.keys(env).filter((key) => /^git_/i.test(key)),
      // The two hook settings are ours, pinned to "none": simple-git refuses any value of them unless allowed.
      unsafe: { allowUnsafeConfigPaths: true, allowUnsafeConfigEnvCount: true, allowUnsafeFsMonitor: true, allowUnsafeHooksPath: true },
      input: options.input === undefined ? undefined : () => options.input,
      // Done when git's output is closed, as with any child process here. simple-git would otherwise also
      // take "exited 50 ms ago" for done, and that 50 ms timer outlived every git call: a command whose
      // last act was asking git waited it out before exiting.
      completion: { onClose: true, onExit: false },
      // By default simple-git calls a non-zero exit with a silent stderr a success; here it fails. Its text is
      // UTF-8 decoded: the bytes are taken here, as git wrote them.
      errors: (error, result) => {
        if (error === undefined && result.exitCode === 0) {
          bytes = Buffer.concat(result.stdOut);
          return undefined;
        }
        stderr = Buffer.concat(result.stdErr).toString('utf8');
        return error ?? new Error(`exit code ${result.exitCode}`);
      },
    });
    const text = await client.env(env).raw([...args]);
    return { text, bytes };
  } catch (error) {
    throw gitFailure(args, options.cwd, stderr, error);
  }
}

/** Streams `git args` stdout into `file` (a patch may be large); resolves with the bytes written. */
export async function gitToFile(args: readonly string[], options: GitOptions & { file: string }): Promise<number> {
  // simple-git keeps a task's whole output in memory, whatever reads it: a patch streams to disk through execa.
  const { execa } = await import('execa');
  const { stat } = await import('node:fs/promises');
  const result = await execa('git', [...SAFE_GIT_ARGS, ...args], {
    cwd: options.cwd,
    env: gitEnv(options),
    extendEnv: false,
    stdin: 'ignore',
    stdout: { file: options.file },
    stderr: 'pipe',
    reject: false,
  });
  if (result.failed) throw gitFailure(args, options.cwd, String(result.stderr ?? ''), result);
  return (await stat(options.file)).size;
}

// The main checkout's common git folder and its object format do not change while this process runs: asked
// once per root, in one git call (the pool's reset, the worktree integrity check, info/exclude and the object
// quarantine all need them, for every task).
const stores = new Map<string, Promise<RepositoryStore>>();

/** Where `root`'s repository keeps what its worktrees share, and how it names its objects. */
export interface RepositoryStore {
  /** The common git folder (`--git-common-dir`, absolute). */
  commonDir: string;
  objectFormat: 'sha1' | 'sha256';
}

/** `root`'s common git folder and object format, asked of git once per process. */
export function repositoryStore(root: string): Promise<RepositoryStore> {
  let found = stores.get(root);
  if (!found) {
    found = git(['rev-parse', '--git-common-dir', '--show-object-format'], { cwd: root }).then((out) => {
      const [common = '', format] = out.trim().split('\n');
      return { commonDir: path.resolve(root, common.trim()), objectFormat: format?.trim() === 'sha256' ? 'sha256' : 'sha1' };
    });
    found.catch(() => stores.delete(root));
    stores.set(root, found);
  }
  return found;
}

/** `root`'s common git folder (`--git-common-dir`, absolute), asked of git once per process. */
export async function commonGitDir(root: string): Promise<string> {
  return (await repositoryStore(root)).commonDir;
}

/** The repository's top level containing `cwd`, or null outside a repository. */
export async function findRepoRoot(cwd: string): Promise<string | null> {
  try {
    return (await git(['rev-parse', '--show-toplevel'], { cwd })).trim();
  } catch {
    return null;
  }
}

/** The repository's top level containing `cwd`, or `cwd` itself outside a repository (where `check` and
 * the evidence commands still work). */
export async function repoRootOrCwd(cwd: string): Promise<string> {
  return (await findRepoRoot(cwd)) ?? cwd;
}

/** Splits NUL-terminated `-z` output into strings, dropping the trailing empty field. */
export function splitNul(output: Buffer | string): string[] {
  const text = typeof output === 'string' ? output : output.toString('utf8');
  const parts = text.split('\0');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}
