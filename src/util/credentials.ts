// Which environment variables hold credentials: the ones Elenchos itself knows about (never given to an
// agent or the app, whatever the config says) and every name that looks like one.

/** The verifier's credentials and the evidence signing key: never passed on, always redacted. */
export const CREDENTIAL_ENV: readonly string[] = ['LT_USERNAME', 'LT_ACCESS_KEY', 'KANE_CLI_ACCESS_KEY', 'ELENCHOS_SIGNING_KEY'];

/**
 * Values of credential-looking variables shorter than this are not redacted by name alone: a
 * `FEATURE_TOKEN=1` or `GPG_KEY=on` would otherwise turn every `1` or `on` in the evidence into
 * [REDACTED]. Real API keys and tokens are far longer. (Names listed in `redact` use MIN_SECRET_LENGTH.)
 */
export const MIN_GUESSED_SECRET_LENGTH = 8;

// One `_`-separated word of the name is enough: GITHUB_TOKEN, DB_PASSWORD, CLIENT_SECRET_ID, NPM_AUTH_TOKEN.
const WORDS = new Set([
  'TOKEN',
  'TOKENS',
  'SECRET',
  'SECRETS',
  'PASSWORD',
  'PASSWORDS',
  'PASSWD',
  'PASSPHRASE',
  'CREDENTIAL',
  'CREDENTIALS',
  'APIKEY',
  'PAT',
  'COOKIE',
  'PRIVATE',
  'SESSION',
]);
// Words that must end the name: AWS_SECRET_ACCESS_KEY, OPENAI_API_KEY, SIGNING_KEY, but not KEYBOARD_LAYOUT.
const LAST_WORDS = new Set(['KEY', 'KEYS', 'PASS', 'PWD', 'AUTH', 'DSN']);
// Shell state that only looks like a credential.
const NOT_SECRETS = new Set([
  'PWD',
  'OLDPWD',
  'SSH_AUTH_SOCK',
  'GPG_AGENT_INFO',
  'XDG_SESSION_ID',
  'XDG_SESSION_TYPE',
  'XDG_SESSION_CLASS',
  'XDG_SESSION_DESKTOP',
  'DBUS_SESSION_BUS_ADDRESS',
]);

/** True when an environment variable's name says it holds a credential (`*_TOKEN`, `*_SECRET*`, `*_KEY`, `*PASSWORD*`, `*_PAT`, …). */
export function looksLikeCredential(name: string): boolean {
  const upper = name.toUpperCase();
  if (NOT_SECRETS.has(upper)) return false;
  if (CREDENTIAL_ENV.includes(upper)) return true;
  if (/PASSWORD|PASSWD|SECRET|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|AUTH_?TOKEN/.test(upper)) return true;
  const words = upper.split(/[^A-Z0-9]+/).filter(Boolean);
  return words.some((w) => WORDS.has(w)) || LAST_WORDS.has(words.at(-1) ?? '');
}

/** The names in `env` that look like credentials and hold a value long enough to redact. */
export function credentialNames(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(([name, value]) => value !== undefined && value.trim().length >= MIN_GUESSED_SECRET_LENGTH && looksLikeCredential(name))
    .map(([name]) => name);
}
