// With `agent.sandbox: bwrap`, the app Elenchos starts (and `setup.command`, which runs the repository's
// install scripts) is the agent's code too: it runs in the same kind of bubblewrap sandbox as the agent.
// Its worktree writable (the `app.writes` paths live there), the checkout around it hidden (acks, the
// setup cache, the pool, the evidence), `.git` read-only whole (the app makes no commit: no hook, config
// or object can be planted), no view of Elenchos's processes, none of the credentials. The network is
// shared: the verifier reaches the app's port on localhost. See docs/security.md#the-app-sandbox.
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { BWRAP, HIDDEN_HOME_PATHS, SANDBOX_ISOLATION, emptyFile, objectStoreBinds } from '../../agents/sandbox.js';
import { sandboxOn, type SandboxResolution } from '../../agents/sandbox-mode.js';
import type { Config } from '../../config/config-schema.js';
import { elenchosDir } from '../../evidence/layout.js';
import type { RunMode } from '../../states.js';

export interface AppSandboxOptions {
  /** The app's worktree (the checkout itself with `verify --in-place`): its cwd and the only folder it may write. */
  workspace: string;
  /** The main checkout: hidden around the worktree; in place, its `.elenchos/` hidden and its `.git` read-only. */
  checkout: string;
  home: string | undefined;
  /** Home-relative folders left writable (a package manager's download cache, for setup only). */
  writableHome?: readonly string[];
  /** Absolute folders left writable (a package manager's cache named by its variable, for setup only). */
  writable?: readonly string[];
  /** Home-relative entries of HIDDEN_HOME_PATHS left readable (`.npmrc`, for setup's private registries). */
  visibleHome?: readonly string[];
  /** Key files and folders hidden as well (util/secret-paths.ts: secretPathsToHide). */
  hidden?: readonly string[];
  /** The run's held objects (its agent's commits, not yet in the store): readable; every other run's are hidden. */
  heldObjects?: string | null;
}

/**
 * The one line said when the agent, its app and setup run without a sandbox (by `doctor`, and in each run's
 * header line): short, since it is printed on every run; what stays open is the table in
 * docs/security.md#what-the-sandbox-closes. A `verify` has no agent: the code that runs unsandboxed there
 * is the commit's, through its app and setup. With `why` (the resolution), said why when it was not asked
 * for ("auto" where bubblewrap does not hold).
 */
export function openWithoutSandbox(mode: RunMode, resolution?: SandboxResolution): string {
  const who = mode === 'verify' ? "the app (this commit's code) runs" : 'the agent and its app run';
  const why = resolution && resolution.mode === 'none' && !resolution.why.endsWith('"none"') ? `, since ${resolution.why}` : '';
  return `no sandbox: ${who} as you${why}; see ${SANDBOX_DOC}`;
}

const SANDBOX_DOC = 'docs/security.md#what-the-sandbox-closes';

/** Where a setup's package manager keeps its downloads: writable for `setup.command` in the sandbox, when they exist. */
export const SETUP_CACHES = ['.npm', '.cache/yarn', '.yarn/berry', '.cache/pnpm', '.local/share/pnpm', '.bun/install/cache'];

/** Where the sandbox settings of the app and setup come from: the agent's (they run the agent's code). */
export function appSandboxed(config: Pick<Config, 'agent'>): boolean {
  return sandboxOn(config.agent);
}

/** `bwrap <args> -- command args`: the app (or setup) in its sandbox. */
export function appSandboxCommand(
  command: string,
  args: readonly string[],
  options: AppSandboxOptions,
): { command: string; args: string[] } {
  const { workspace, checkout } = options;
  const out = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  const inPlace = path.resolve(workspace) === path.resolve(checkout);
  if (!inPlace) out.push('--tmpfs', checkout);
  // The repository whole, read-only: objects included (a new object could pass for an old one's id
  // nowhere, but nothing the app does needs one), hooks, config, refs, the worktree's admin folder.
  // Bound after the worktree when it lies inside it (in place): the later mount wins.
  const { common, admin } = gitDirs(workspace);
  // Every run's quarantines and held objects hidden (a best-of rival's staged and committed work), this run's held ones shown.
  const objects = common ? objectStoreBinds(common, null, options.heldObjects ?? null) : [];
  if (common && !inPlace) out.push('--ro-bind', common, common, ...objects);
  // Other worktrees' admin folders (a best-of rival's index and HEAD, which name its staged and committed
  // objects) are out of sight, as in the agent's sandbox: an empty read-only `worktrees/` with only this one.
  const others = admin ? path.dirname(admin) : null;
  if (common && admin && others && !inPlace && path.basename(others) === 'worktrees' && path.dirname(others) === common)
    out.push('--tmpfs', others, '--ro-bind', admin, admin, '--remount-ro', others);
  out.push('--bind', workspace, workspace);
  if (common && inPlace) out.push('--ro-bind', common, common, ...objects);
  // The worktree's `.git` (a file naming its admin folder) cannot be repointed either.
  const dotGit = path.join(workspace, '.git');
  if (dotGit !== common && existsSync(dotGit)) out.push('--ro-bind', dotGit, dotGit);
  if (inPlace) {
    const elenchos = elenchosDir(checkout);
    if (existsSync(elenchos)) out.push('--tmpfs', elenchos, '--remount-ro', elenchos);
  }
  if (options.home) {
    const visible = new Set(options.visibleHome ?? []);
    for (const hidden of HIDDEN_HOME_PATHS) {
      const full = path.join(options.home, hidden);
      if (visible.has(hidden) || !existsSync(full)) continue;
      out.push(...(isDirectory(full) ? ['--tmpfs', full] : ['--ro-bind', emptyFile(), full]));
    }
    for (const own of options.writableHome ?? []) {
      const full = path.join(options.home, own);
      if (isDirectory(full)) out.push('--bind', full, full);
    }
  }
  for (const full of options.writable ?? []) if (path.isAbsolute(full) && isDirectory(full)) out.push('--bind', full, full);
  for (const full of options.hidden ?? []) {
    if (!inPlace && (full === checkout || full.startsWith(`${checkout}${path.sep}`))) continue; // hidden with the checkout
    out.push(...(isDirectory(full) ? ['--tmpfs', full] : ['--ro-bind', '/dev/null', full]));
  }
  if (!inPlace) out.push('--remount-ro', checkout);
  out.push(...SANDBOX_ISOLATION, '--chdir', workspace, '--', command, ...args);
  return { command: BWRAP, args: out };
}

/** Variables naming a package manager's download cache elsewhere than under HOME (npx sets npm's for what it runs). */
export const SETUP_CACHE_VARIABLES = ['npm_config_cache', 'NPM_CONFIG_CACHE', 'YARN_CACHE_FOLDER'];

/**
 * `setup.command`'s sandbox: the app's, with the package manager's download cache writable (under HOME, or
 * where `env`, setup's environment, names it) and `.npmrc` readable.
 */
export function setupSandboxOptions(
  workspace: string,
  checkout: string,
  home: string | undefined,
  hidden: readonly string[] = [],
  env: NodeJS.ProcessEnv = {},
): AppSandboxOptions {
  // npm creates its cache on first use: made here, where it would be made outside the sandbox anyway.
  if (home && isDirectory(home)) mkdirSync(path.join(home, '.npm'), { recursive: true });
  const writable = SETUP_CACHE_VARIABLES.map((name) => env[name]).filter((dir): dir is string => Boolean(dir));
  return { workspace, checkout, home, writableHome: SETUP_CACHES, writable, visibleHome: ['.npmrc'], hidden };
}

/** The repository's common git folder (`<checkout>/.git`) and the worktree's admin folder, from its `.git` file; or `.git` itself. */
function gitDirs(workspace: string): { common: string | null; admin: string | null } {
  const dotGit = path.join(workspace, '.git');
  try {
    if (isDirectory(dotGit)) return { common: dotGit, admin: null };
    const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
    if (!pointer) return { common: null, admin: null };
    const admin = path.resolve(workspace, pointer);
    return { common: path.resolve(admin, readFileSync(path.join(admin, 'commondir'), 'utf8').trim()), admin };
  } catch {
    return { common: null, admin: null };
  }
}

/** A folder this user can reach (one under another user's 0700 home, as npm's cache named by root's npx, is not). */
function isDirectory(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}
