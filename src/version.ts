// The package version, read once from package.json next to dist/.
import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** Elenchos's own version. */
export function elenchosVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}
