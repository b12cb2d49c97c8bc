// Keys this process was handed on its command line rather than by a fixed name: `--attest-key env:NAME`
// (a variable no list here knows), `--attest-key <file>`, `--attest-key sigstore` (the CI's OIDC request
// token). Once held, no child of Elenchos gets the variable, whatever its kind's rule inherits
// (process/child-env.ts), and every sandbox hides the file (secret-paths.ts). Held for the process's life:
// the key was read at the start, and the commit's code runs after.
import path from 'node:path';

const names = new Set<string>();
const files = new Set<string>();

/** No child of this process gets variable `name`. */
export function holdSecretEnv(name: string): void {
  names.add(name);
}

/** Every sandbox of this process hides `file` (absolute, or relative to `cwd`). */
export function holdSecretFile(file: string, cwd: string): void {
  files.add(path.resolve(cwd, file));
}

/** The variables held so far. */
export function heldSecretEnv(): string[] {
  return [...names];
}

/** The files held so far. */
export function heldSecretFiles(): string[] {
  return [...files];
}
