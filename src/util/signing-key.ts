// The evidence signing key: from a 0600 key file (`--signing-key-file`, ELENCHOS_SIGNING_KEY_FILE), read
// once when Elenchos starts, or from ELENCHOS_SIGNING_KEY. A key in the environment sits in
// /proc/<elenchos pid>/environ for the process's whole life (deleting it from process.env does not clear
// that), where any process of the same user reads it: the agent's code, unless agent.sandbox hides
// Elenchos's processes from it. A key file is hidden from a sandboxed agent and app (secret-paths.ts).
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';

export const SIGNING_KEY_ENV = 'ELENCHOS_SIGNING_KEY';
export const SIGNING_KEY_FILE_ENV = 'ELENCHOS_SIGNING_KEY_FILE';

export interface SigningKey {
  /** Undefined: evidence is hashed, not signed. */
  key: string | undefined;
  /** Where it came from. */
  source: 'file' | 'env' | 'none';
  /** The key file's absolute path (source `file`). */
  file?: string;
}

// Read once per environment (the CLI's is process.env): later reads get what was read at the start.
const loaded = new WeakMap<NodeJS.ProcessEnv, SigningKey>();

/**
 * Reads the signing key now (the key file named by `file`, else ELENCHOS_SIGNING_KEY_FILE, else
 * ELENCHOS_SIGNING_KEY) and keeps it for this `env`. A relative key file is the caller's: relative to
 * `cwd` (the CLI's working folder), refused without one. Bad input (a missing, empty or
 * group/world-readable key file, or both a file and ELENCHOS_SIGNING_KEY) is an InputError naming the fix.
 */
export function loadSigningKey(env: NodeJS.ProcessEnv, file?: string, cwd?: string): SigningKey {
  const named = file ?? (env[SIGNING_KEY_FILE_ENV] || undefined);
  let found: SigningKey;
  if (named) {
    const where = file ? '--signing-key-file' : SIGNING_KEY_FILE_ENV;
    if (env[SIGNING_KEY_ENV])
      throw new InputError(
        `${where} and ${SIGNING_KEY_ENV} are both set: unset ${SIGNING_KEY_ENV} (a key in the environment is readable from /proc)`,
      );
    if (!cwd && !path.isAbsolute(named))
      throw new InputError(`${where}: ${named} is a relative path, and no working folder was given to read it from; give an absolute path`);
    const absolute = cwd ? path.resolve(cwd, named) : named;
    found = { key: readKeyFile(absolute, where), source: 'file', file: absolute };
  } else if (env[SIGNING_KEY_ENV]) found = { key: env[SIGNING_KEY_ENV], source: 'env' };
  else found = { key: undefined, source: 'none' };
  loaded.set(env, found);
  return found;
}

/**
 * `env` with `extra` on top, keeping the key loaded for `env` (the key is kept per environment object, so a
 * plain copy would read it again without `--signing-key-file`: a best-of candidate sealed unsigned, and its
 * sandbox did not hide the key file).
 */
export function withSigningKeyOf(env: NodeJS.ProcessEnv, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env, ...extra };
  const key = loaded.get(env);
  if (key) loaded.set(copy, key);
  return copy;
}

/** The key as loaded for `env` already, or undefined when it was not loaded yet. */
export function loadedSigningKey(env: NodeJS.ProcessEnv): SigningKey | undefined {
  return loaded.get(env);
}

/** The signing key for `env`: as loaded at the start (loadSigningKey), or loaded now. */
export function signingKeyFor(env: NodeJS.ProcessEnv): string | undefined {
  return signingKeySource(env).key;
}

/** Where the signing key of `env` comes from (loaded now if it was not yet). */
export function signingKeySource(env: NodeJS.ProcessEnv): SigningKey {
  return loaded.get(env) ?? loadSigningKey(env);
}

function readKeyFile(file: string, where: string): string {
  let info: ReturnType<typeof statSync>;
  try {
    info = statSync(file, { throwIfNoEntry: false });
  } catch (error) {
    // A name too long, a path through a file, a folder that cannot be searched: still the user's path.
    throw new InputError(
      `${where}: ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); give the path of a 0600 key file`,
    );
  }
  if (!info?.isFile())
    throw new InputError(`${where}: ${file} is not a file; write the key there (e.g. openssl rand -hex 32 > ${file}; chmod 600 ${file})`);
  if ((info.mode & 0o077) !== 0)
    throw new InputError(`${where}: ${file} can be read by other users (mode ${(info.mode & 0o777).toString(8)}); run chmod 600 ${file}`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(
      `${where}: ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); check its owner and mode 600`,
    );
  }
  const key = text.replace(/\r?\n$/, '');
  if (key.trim().length === 0)
    throw new InputError(`${where}: ${file} is empty; write the key there (e.g. openssl rand -hex 32 > ${file})`);
  return key;
}
