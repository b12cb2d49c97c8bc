// What an app writes into the repository by design: the user's `app.writes` plus the writes of
// well-known dev servers. Such paths are the app's data, not the agent's work (docs/config.md#app-writes).
import { globBase } from '../util/glob-match.js';

/**
 * Writes of well-known dev servers that land in the tracked tree (not under a folder their templates
 * ignore), looked up in each server's source or docs (issue #23's note lists them):
 * - Vite 5 (and what runs on it: SvelteKit, Remix, Vitest) bundles its config to
 *   `<config>.timestamp-<ms>-<hex>.mjs` beside it, imports it and deletes it, at every start.
 * - Next.js `next dev` writes `next-env.d.ts` when its content differs, and all of `.next/`; in CI or a
 *   container its telemetry creates `cache/` (for `cache/config.json`). Next 16 also writes `AGENTS.md`
 *   when its managed blocks are not current: not built in (it is the agents' file, and create-next-app
 *   commits it current); a project that lacks it commits it once, as Next's own message says.
 * - Nuxt writes `.nuxt/`, Astro `.astro/`, SvelteKit `.svelte-kit/` (their templates ignore them;
 *   a repository that dropped the line would fail every run).
 * - Python (Django's runserver and every other) writes `__pycache__/*.pyc` on import; Django's default
 *   database `db.sqlite3` appears on first use.
 * - Rails in development writes `log/development.log` and, under `tmp/`, pids, cache, sockets, storage,
 *   restart.txt and its development secret.
 * Each is matched at any depth where the tool may run in a subfolder (a monorepo's `apps/web/.next/`).
 * None of them can carry the agent's work into a verdict: declared paths go back to the base commit
 * before the app starts (core/run/phases/workspace-guard.ts).
 */
export const BUILTIN_APP_WRITES: readonly string[] = [
  '**/*.config.*.timestamp-*.mjs',
  '**/next-env.d.ts',
  '**/.next/**',
  '**/.nuxt/**',
  '**/.astro/**',
  '**/.svelte-kit/**',
  '**/__pycache__/**',
  '**/db.sqlite3',
  '**/db.sqlite3-journal',
  // Next.js telemetry, when it thinks it runs in CI or a container (ci-info, is-docker): `conf` creates
  // `<cwd>/cache/` for its preferences (next/dist/telemetry/storage.js), even with telemetry disabled.
  'cache/config.json',
  'log/development.log',
  // Only what `rails server` writes there: a tracked file of the project's own under tmp/ stays the agent's.
  'tmp/pids/**',
  'tmp/cache/**',
  'tmp/sockets/**',
  'tmp/storage/**',
  'tmp/restart.txt',
  'tmp/local_secret.txt',
  'tmp/development_secret.txt',
];

/** Every glob the app may write: the built-in ones, then `app.writes`. */
export function appWriteGlobs(declared: readonly string[]): string[] {
  return [...new Set([...BUILTIN_APP_WRITES, ...declared])];
}

/**
 * The folders a declared glob names before its first wildcard (`data/db.json` → `data`, `log/**` →
 * `log`): an app may create those folders; any other folder it creates is a write of its own.
 */
export function declaredFolders(declared: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const glob of appWriteGlobs(declared)) {
    const { base, isGlob } = globBase(glob);
    const parts = base.split('/').filter(Boolean);
    // `data/db.json` (no wildcard) names a file: only its parents are folders the app may create.
    const depth = isGlob ? parts.length : parts.length - 1;
    for (let i = 1; i <= depth; i++) folders.add(parts.slice(0, i).join('/'));
  }
  return [...folders].sort();
}
