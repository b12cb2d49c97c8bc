// A dependency on a path outside the repository cannot be installed where runs install: a relative
// spec is resolved from the package.json that holds it, and a run's package.json is in its worktree
// (`.elenchos/workspaces/<run>/`), a CI job's in a fresh clone. `npm install -D ../elenchos/x.tgz`
// records `file:../elenchos/x.tgz`, which from a worktree names `.elenchos/workspaces/elenchos/x.tgz`:
// `npm ci` fails in every run. A path inside the repository travels with it; an absolute one stays put.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fail, warn, type DoctorCheck } from './doctor-check.js';

/** The fields whose packages `npm ci` / `yarn install` / `pnpm install` fetch (workspaces are out of scope). */
const FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const;

/** A local-path spec: npm's `file:`, yarn's and pnpm's `link:`, yarn berry's `portal:`, or a bare path. */
const PROTOCOL = /^(file|link|portal):/;

export const DEPENDENCIES_CHECK = 'dependencies';

/**
 * Every dependency of the root package.json given by a relative path that leaves the repository, with
 * what to do instead. A failure when `setup.command` installs in each run's worktree, else a warning
 * (CI still installs from a clone).
 */
export async function checkLocalDependencies(root: string, setupCommand: string | undefined): Promise<DoctorCheck[]> {
  const text = await readFile(path.join(root, 'package.json'), 'utf8').catch(() => null);
  if (text === null) return [];
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    return [
      warn(DEPENDENCIES_CHECK, `package.json is not valid JSON (${(error as Error).message})`, 'fix package.json: no install can read it'),
    ];
  }
  const checks: DoctorCheck[] = [];
  for (const field of FIELDS) {
    const deps = (manifest as Record<string, unknown> | null)?.[field];
    if (deps === null || typeof deps !== 'object') continue;
    for (const [name, spec] of Object.entries(deps)) {
      if (typeof spec !== 'string') continue;
      const target = outsidePath(root, spec);
      if (target === null) continue;
      const message =
        `package.json ${field}.${name} is "${spec}", a path outside the repository: a run's worktree ` +
        `(.elenchos/workspaces/<run>/) and a CI checkout resolve it elsewhere, so their install fails`;
      const fix = fixFor(root, field, name, spec, target);
      checks.push(setupCommand ? fail(DEPENDENCIES_CHECK, message, fix) : warn(DEPENDENCIES_CHECK, message, fix));
    }
  }
  return checks;
}

/** The absolute path a relative local spec names when it leaves `root`; null for anything else. */
export function outsidePath(root: string, spec: string): string | null {
  const local = PROTOCOL.test(spec) ? spec.replace(PROTOCOL, '') : /^\.\.?\//.test(spec) ? spec : null;
  // A registry range, a git URL, an absolute path, a file:// URL or ~/ (the user's home) does not move with the checkout.
  if (local === null || local.startsWith('//') || local.startsWith('~/') || path.isAbsolute(local)) return null;
  const target = path.resolve(root, local);
  const rel = path.relative(root, target);
  return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel) ? target : null;
}

function fixFor(root: string, field: string, name: string, spec: string, target: string): string {
  const protocol = PROTOCOL.exec(spec)?.[1] ?? 'file';
  if (!/\.(tgz|tar\.gz|tar)$/.test(target)) {
    // Checked with npm 11: a folder is a link whose lockfile entry stays relative ("resolved": "../x")
    // even when package.json names it absolutely, so `npm ci` in a worktree fails all the same.
    const vendor = path.join(root, 'vendor');
    return (
      `pack it into the repository: mkdir -p vendor && (cd ${target} && npm pack --pack-destination ${vendor}), ` +
      `commit the tarball and depend on "file:./vendor/<its file name>"; or move the folder into the repository ` +
      `(an absolute folder path does not help: the lockfile keeps it relative)`
    );
  }
  const inside = `vendor/${path.basename(target)}`;
  // Checked with npm 11: `npm install -D /abs/x.tgz` saves "file:../x.tgz"; a spec set by hand stays absolute.
  return (
    `copy it into the repository (e.g. ${inside}), commit it and depend on "${protocol}:./${inside}"; ` +
    `or, on this machine only, on its absolute path: npm pkg set "${field}.${name}=${protocol}:${target}" ` +
    `(npm install <path> saves even an absolute path relative); then reinstall so the lockfile follows`
  );
}
