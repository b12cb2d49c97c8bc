// What an app writes into the repository by design: the user's `app.writes` plus the writes of
// well-known dev servers. Such paths are the app's data, not the agent's work (docs/config.md#app-writes).
import { globBase, literalGlob } from '../util/glob-match.js';

/**
 * Writes of well-known dev servers that land in the tracked tree (not under a folder their templates
 * ignore), looked up in each server's source or docs (the config reference, docs/config.md, lists them):
 * - Vite 5 (and what runs on it: SvelteKit, Remix, Vitest) bundles its config to
 *   `<config>.timestamp-<ms>-<hex>.mjs` beside it, imports it and deletes it, at every start (Vite 6.1+
 *   writes it to `node_modules/.vite-temp/` when there is a node_modules, beside the config when not).
 * - Next.js `next dev` writes `next-env.d.ts` when its content differs, and all of `.next/`; in CI or a
 *   container its telemetry opens a preferences store in `<cwd>/cache/` (next/dist/telemetry/storage.js:
 *   `conf` creates the folder as it reads, even with NEXT_TELEMETRY_DISABLED=1; `config.json` in it is
 *   written once `next telemetry` sets a preference). Next 16 also writes `AGENTS.md` when its managed
 *   blocks are not current: not built in (it is the agents' file, and create-next-app commits it
 *   current); a project that lacks it commits it once, as Next's own message says.
 * - Nuxt writes `.nuxt/`, Astro `.astro/`, SvelteKit `.svelte-kit/` (their templates ignore them;
 *   a repository that dropped the line would fail every run); Nuxt's server (Nitro) keeps its dev
 *   `data` storage in `.data/kv/` (nitropack core: `devStorage.data`), which the Nuxt starter ignores.
 * - Python (Django's runserver and every other) writes `__pycache__/*.pyc` on import; Django's default
 *   database `db.sqlite3` appears on first use.
 * - Rails in development writes `log/development.log`, its development database
 *   (`storage/development.sqlite3` since Rails 7.1's template, `db/development.sqlite3` before; with
 *   `-wal`/`-shm`/`-journal` beside it) and, under `tmp/`, pids, cache, sockets, storage, restart.txt
 *   and its development secret.
 * Each is matched at any depth (a monorepo's `apps/web/.next/`, `backend/log/development.log`): a dev
 * server writes beside its config or in its working folder, wherever that is.
 * None of them can carry the agent's work into a verdict: declared paths go back to the base commit
 * before the app starts (core/run/phases/workspace-guard.ts).
 *
 * Looked up and left out (a project that tracks one declares it in app.writes):
 * - Remix's classic compiler (`remix dev`) writes `build/`, `public/build/` and `.cache/`: its templates
 *   ignore all three, it is superseded by Remix on Vite (built in above), and `build/` is too common a
 *   name for a project's own files to be taken from every agent's change.
 * - Rails' Active Storage uploads (`storage/<xx>/<yy>/<key>` in development): `storage/` is also a common
 *   name for a project's own folder, and uploads happen only when a test uploads.
 * - Rails' test and cache databases (`storage/test.sqlite3`, `…_cache.sqlite3`): `rails server` in
 *   development does not write them.
 */
export const BUILTIN_APP_WRITES: readonly string[] = [
  '**/*.config.*.timestamp-*.mjs',
  '**/next-env.d.ts',
  '**/.next/**',
  '**/.nuxt/**',
  '**/.data/kv/**',
  '**/.astro/**',
  '**/.svelte-kit/**',
  '**/__pycache__/**',
  '**/db.sqlite3',
  '**/db.sqlite3-journal',
  // Next.js telemetry in CI or a container (see above): the folder, and its store once a preference is set.
  '**/cache/config.json',
  '**/log/development.log',
  '**/storage/development.sqlite3*',
  '**/db/development.sqlite3*',
  // Only what `rails server` writes there: a tracked file of the project's own under tmp/ stays the agent's.
  '**/tmp/pids/**',
  '**/tmp/cache/**',
  '**/tmp/sockets/**',
  '**/tmp/storage/**',
  '**/tmp/restart.txt',
  '**/tmp/local_secret.txt',
  '**/tmp/development_secret.txt',
];

/**
 * Every glob the app may write: the built-in ones, then `app.writes`, then an exception (`!path`) for each
 * file the verifier reads (`readByVerifier`, see verifierReadGlobs). The app writing one of those is a write
 * to the verifier's input, caught in the window, never the app's data put back in silence: `**\/__pycache__/**`
 * is Django's bytecode, but not the bytecode of a module the verifier imports.
 */
export function appWriteGlobs(declared: readonly string[], readByVerifier: readonly string[] = []): string[] {
  return [...new Set([...BUILTIN_APP_WRITES, ...declared, ...readByVerifier.map((glob) => `!${glob}`)])];
}

/**
 * What a verifier may read, given the files it locks: each file, and for a Python one the bytecode the import
 * system would take for it (`d/__pycache__/m.<tag>.pyc`, a sourceless `d/m.pyc`). A command verifier runs with
 * bytecode off (verifiers/command/no-bytecode.ts); its cache is still no file the app may write.
 */
export function verifierReadGlobs(files: readonly string[]): string[] {
  const globs: string[] = [];
  for (const file of files) {
    globs.push(literalGlob(file));
    const python = /^(?:(.*)\/)?([^/]+)\.pyw?$/.exec(file);
    if (!python) continue;
    const [dir, stem] = [python[1] === undefined ? '' : `${literalGlob(python[1])}/`, literalGlob(python[2]!)];
    globs.push(`${dir}__pycache__/${stem}.*.pyc`, `${dir}${stem}.pyc`);
  }
  return [...new Set(globs)];
}

// The folders a declared glob names before its first wildcard (`data/db.json` → `data`, `log/**` →
// `log`): an app may create those folders; any other folder it creates is a write of its own. A glob
// that starts with `**/` names them at any depth (`**/tmp/pids/**` → `**/tmp`, `**/tmp/pids`): the
// result holds such folder globs beside plain paths, and the window matches both (git/window-watch.ts).
/** The folders an app may create on its way to what it writes (plain paths, and folder globs at any depth). */
export function declaredFolders(declared: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const glob of appWriteGlobs(declared)) {
    if (glob.startsWith('!')) continue;
    const anyDepth = glob.startsWith('**/');
    const { base, isGlob } = globBase(anyDepth ? glob.slice(3) : glob);
    const parts = base.split('/').filter(Boolean);
    // `data/db.json` (no wildcard) names a file: only its parents are folders the app may create.
    const depth = isGlob ? parts.length : parts.length - 1;
    for (let i = 1; i <= depth; i++) folders.add(`${anyDepth ? '**/' : ''}${parts.slice(0, i).join('/')}`);
  }
  return [...folders].sort();
}
