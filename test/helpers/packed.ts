// Elenchos as a user gets it: `npm pack` of this checkout, installed into a fresh project from the
// npm cache alone (no network), so only what the tarball and its runtime dependencies hold is there.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnCollected } from './cli.js';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** npm with no network, no audit, no update check: a test must never reach a registry. */
export function npm(args: string[], cwd: string): SpawnSyncReturns<string> {
  const env = {
    ...process.env,
    npm_config_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  return spawnSync('npm', args, { cwd, encoding: 'utf8', env, timeout: 300_000 });
}

export interface Packed {
  tarball: string;
  files: string[];
}

/**
 * Packs this checkout into `dir`. `--ignore-scripts`: `npm test` has just built dist/, and a rebuild
 * here would rewrite dist/ under the other test files that are running the CLI at the same time.
 */
export function packElenchos(dir: string): Packed {
  const result = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], REPO);
  if (result.status !== 0) throw new Error(`npm pack failed: ${result.stderr}`);
  const [info] = JSON.parse(result.stdout) as { filename: string; files: { path: string }[] }[];
  return { tarball: path.join(dir, info!.filename), files: info!.files.map((f) => f.path) };
}

/**
 * Writes a project whose only devDependency is the tarball, with a lockfile naming the tarball and
 * the runtime dependencies exactly as this checkout locks them: `npm ci --offline` then installs
 * from the cache `npm ci` filled here (a fresh `npm install <tarball>` would need the registry's
 * package metadata, which that cache does not hold). Dev-only packages are not installed.
 */
export function writeInstallableProject(root: string, tarball: string): void {
  const lock = JSON.parse(readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, Record<string, unknown>>;
  };
  const own = lock.packages['']!;
  // Absolute: the project's worktrees (.elenchos/workspaces/…) run `npm ci` too, from another folder.
  const spec = `file:${tarball}`;
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  const manifest = { name: 'my-app', version: '1.0.0', private: true, devDependencies: { elenchos: spec } };
  const packages: Record<string, unknown> = {
    '': { name: 'my-app', version: '1.0.0', devDependencies: manifest.devDependencies },
    'node_modules/elenchos': {
      version: own.version,
      resolved: spec,
      integrity,
      dev: true,
      license: own.license,
      dependencies: own.dependencies,
      bin: own.bin,
      engines: own.engines,
    },
  };
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key !== '' && entry.dev !== true) packages[key] = { ...entry, dev: true };
  }
  writeFileSync(path.join(root, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(
    path.join(root, 'package-lock.json'),
    `${JSON.stringify({ name: 'my-app', version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`,
  );
}

/** `npx elenchos …` in `cwd`, never falling back to the registry (`--no`); awaited, so other cases run meanwhile. */
export async function npxElenchos(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const run = await spawnCollected(
    'npx',
    ['--no', '--', 'elenchos', ...args],
    cwd,
    { npm_config_offline: 'true', npm_config_update_notifier: 'false', ...env },
    300_000,
  );
  return { status: run.code, stdout: run.stdout, stderr: run.stderr };
}
