// Which values count as secrets for a run: gathered once, handed to the Redactor.

/** Kane's credentials: always redacted when set, whatever the config says. */
export const KANE_CREDENTIAL_VARS = ['LT_ACCESS_KEY', 'LT_USERNAME'] as const;

export interface SecretSources {
  /** The environment the run was started with. */
  env: NodeJS.ProcessEnv;
  /** Names of environment variables listed in the config's `redact`. */
  redactEnv?: readonly string[];
  /** Verifier variables; those written as `{ value, secret: true }` are secrets. */
  variables?: Record<string, string | { value: string; secret?: boolean }>;
}

/** The secret values of a run: named env vars, Kane credentials and secret verifier variables. */
export function collectSecretValues(sources: SecretSources): string[] {
  const values: string[] = [];
  for (const name of [...(sources.redactEnv ?? []), ...KANE_CREDENTIAL_VARS]) {
    const value = sources.env[name];
    if (value) values.push(value);
  }
  for (const variable of Object.values(sources.variables ?? {})) {
    if (typeof variable === 'object' && variable.secret) values.push(variable.value);
  }
  return values;
}
