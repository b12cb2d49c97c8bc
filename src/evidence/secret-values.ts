// Which values count as secrets for a run: gathered once, handed to the Redactor.
import { CREDENTIAL_ENV } from '../util/credentials.js';

export interface SecretSources {
  /** The environment the run was started with. */
  env: NodeJS.ProcessEnv;
  /** Names of environment variables listed in the config's `redact`. */
  redactEnv?: readonly string[];
  /** Verifier variables; those written as `{ value, secret: true }` are secrets. */
  variables?: Record<string, string | { value: string; secret?: boolean }>;
}

/** The secret values of a run: named env vars, the known credentials (CREDENTIAL_ENV) and secret verifier variables. */
export function collectSecretValues(sources: SecretSources): string[] {
  const values: string[] = [];
  for (const name of [...(sources.redactEnv ?? []), ...CREDENTIAL_ENV]) {
    const value = sources.env[name];
    if (value) values.push(value);
  }
  for (const variable of Object.values(sources.variables ?? {})) {
    if (typeof variable === 'object' && variable.secret) values.push(variable.value);
  }
  return values;
}
