// Which values count as secrets for a run: gathered once, handed to the Redactor.
import { CREDENTIAL_ENV, credentialNames } from '../util/credentials.js';
import { readFileSync } from 'node:fs';
import { cacheKeyPath } from '../util/secret-paths.js';
import { signingKeyFor } from '../util/signing-key.js';

export interface SecretSources {
  /** The environment the run was started with. */
  env: NodeJS.ProcessEnv;
  /** Names of environment variables listed in the config's `redact`. */
  redactEnv?: readonly string[];
  /** Verifier variables; those written as `{ value, secret: true }` are secrets. */
  variables?: Record<string, string | { value: string; secret?: boolean }>;
  /** Values named in the config as given to a child (`agent.env`, `app.env`, `verifier.env`) under a credential-looking name. */
  configEnv?: readonly Record<string, string>[];
}

/**
 * The secret values of a run: env vars named in `redact`, the known credentials (CREDENTIAL_ENV), every
 * env var whose name looks like a credential (see looksLikeCredential; values of 8+ characters), the
 * same in the config's env maps, the setup cache key (when the machine has one), and secret verifier variables.
 */
export function collectSecretValues(sources: SecretSources): string[] {
  // The machine's keys first: the setup cache's authenticates what a later run restores (an app that prints
  // it could forge a cache); a signing key read from a key file (--signing-key-file) is in no variable.
  const values: string[] = [readCacheKey(sources.env), signingKeyOrNull(sources.env)].filter((key): key is string => key !== null);
  for (const name of [...(sources.redactEnv ?? []), ...CREDENTIAL_ENV]) {
    const value = sources.env[name];
    if (value) values.push(value);
  }
  // Every credential-looking name, in the run's environment and in the config's env maps alike.
  for (const env of [sources.env, ...(sources.configEnv ?? [])]) {
    for (const name of credentialNames(env)) values.push(env[name]!);
  }
  for (const variable of Object.values(sources.variables ?? {})) {
    if (typeof variable === 'object' && variable.secret) values.push(variable.value);
  }
  return [...new Set(values)];
}

function signingKeyOrNull(env: NodeJS.ProcessEnv): string | null {
  try {
    return signingKeyFor(env) ?? null;
  } catch {
    return null; // a bad key file is reported where the key is used, not here
  }
}

/** The machine's setup cache key as its file holds it (64 hex digits), or null when there is none yet. */
function readCacheKey(env: NodeJS.ProcessEnv): string | null {
  try {
    const text = readFileSync(cacheKeyPath(env), 'utf8').trim();
    return text.length > 0 ? text : null;
  } catch {
    return null;
  }
}
