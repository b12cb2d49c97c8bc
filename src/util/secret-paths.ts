// Files and folders holding keys that decide whether evidence and the setup cache are trusted: the
// evidence signing key file and the per-machine setup cache key. Whatever the agent's code runs as must
// not read them; a sandbox (the agent's, the app's) hides each path this lists.
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { InputError } from '../errors.js';
import { accountHome } from './account-home.js';
import path from 'node:path';
import { heldSecretFiles } from './held-secrets.js';
import { SIGNING_KEY_FILE_ENV, signingKeySource } from './signing-key.js';

/**
 * The folder of the per-machine setup cache key: `$XDG_STATE_HOME/elenchos`, else `~/.local/state/elenchos`,
 * from the caller's environment `env`. Without HOME there, the account's home from the password database:
 * os.homedir() would read this process's HOME, which a library caller's `env` may not be.
 */
export function machineKeyDir(env: NodeJS.ProcessEnv): string {
  const state = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : null;
  if (state) return path.join(state, 'elenchos');
  const home = env.HOME || accountHome();
  if (!home)
    throw new InputError(
      'HOME is not set and the account has no home folder: set HOME (or XDG_STATE_HOME), where the setup cache key is kept',
    );
  return path.join(home, '.local', 'state', 'elenchos');
}

/** The setup cache's HMAC key (created 0600 on first use, see core/workspace/setup-cache-auth.ts). */
export function cacheKeyPath(env: NodeJS.ProcessEnv): string {
  return path.join(machineKeyDir(env), 'cache.key');
}

/**
 * Absolute paths a sandbox must hide (a folder: an empty tmpfs over it; a file: /dev/null over it):
 * the signing key file when one is used, the folder of the machine's setup cache key, and the key files
 * this process was handed (`--attest-key <file>`: util/held-secrets.ts). A sandbox
 * cannot mount over nothing, so the key's folder is created first (empty, 0700) when it is missing: the
 * key written into it later (the first setup cache save, while the agent works) is behind the tmpfs too.
 */
export function secretPathsToHide(env: NodeJS.ProcessEnv): string[] {
  try {
    mkdirSync(machineKeyDir(env), { recursive: true, mode: 0o700 });
  } catch {
    // a home that cannot be written: no key can be created there either
  }
  const paths: string[] = [];
  let keyFile: string | undefined;
  try {
    keyFile = signingKeySource(env).file;
  } catch {
    keyFile = env[SIGNING_KEY_FILE_ENV] || undefined; // unreadable now, still not for the agent to see
  }
  // A relative name is one the caller's folder resolves (loadSigningKey): unreadable here, so nothing to hide.
  if (keyFile && path.isAbsolute(keyFile)) paths.push(keyFile);
  paths.push(machineKeyDir(env), ...heldSecretFiles());
  const out = new Set<string>();
  for (const p of paths) {
    if (!existsSync(p)) continue;
    out.add(p);
    // The same file under its real name (a symlinked folder on the way): a mount hides a path, not a name.
    try {
      out.add(realpathSync(p));
    } catch {
      // gone meanwhile
    }
  }
  return [...out];
}
