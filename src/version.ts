// Elenchos's own package: where its files are, and its version, read once from its package.json.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;
let cached: string | undefined;

/**
 * The absolute path of `relative` inside Elenchos's package folder (`package.json`, `dist/…`): the nearest
 * folder above this module with a package.json. This module is reached from three depths: src/ (tests run
 * the sources), dist/ (the compiled modules) and dist/cli.cjs (the bundle, whose modules all share its
 * location, scripts/bundle.js).
 */
export function packageFile(relative: string): string {
  root ??= findRoot(path.dirname(fileURLToPath(import.meta.url)));
  return path.join(root, relative);
}

function findRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`Elenchos's package.json is not above ${start}`);
  }
}

/** Elenchos's own version. */
export function elenchosVersion(): string {
  cached ??= (JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string }).version;
  return cached;
}
