// Builds an agent's environment explicitly: what a shell tool needs, no credential the config does not name.
import { CREDENTIAL_ENV, looksLikeCredential } from '../util/credentials.js';

/** Variables every agent gets when they are set. */
const BASE_KEYS = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TERM',
  'TMPDIR',
  'TZ',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
];

export interface AgentEnvOptions {
  baseEnv: NodeJS.ProcessEnv;
  /** Adapter-specific keys passed through (e.g. AWS_REGION for claude); credential-looking ones only when named in `passEnv`. */
  passKeys?: readonly string[];
  /** Prefixes passed through (e.g. CLAUDE_CODE_ for claude); credential-looking names only when named in `passEnv`. */
  passPrefixes?: readonly string[];
  /** Config `agent.passEnv`: variables of the caller's environment the user chose to give the agent (its API key). */
  passEnv?: readonly string[];
  /** Config `agent.env`. */
  extra: Record<string, string>;
  /** ELENCHOS_* variables describing the attempt. */
  elenchos: Record<string, string>;
}

/** The complete environment of an agent process. */
export function buildAgentEnv(options: AgentEnvOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const pass = new Set([...BASE_KEYS, ...(options.passKeys ?? [])]);
  const named = new Set(options.passEnv ?? []);
  for (const [key, value] of Object.entries(options.baseEnv)) {
    if (value === undefined) continue;
    const wanted = pass.has(key) || (options.passPrefixes ?? []).some((p) => key.startsWith(p));
    if ((wanted && !looksLikeCredential(key)) || named.has(key)) env[key] = value;
  }
  Object.assign(env, options.extra, options.elenchos);
  for (const key of CREDENTIAL_ENV) delete env[key];
  return env;
}

/**
 * The app's environment: the caller's minus anything that looks like a credential (the app runs code the
 * agent wrote), plus the variables named in `app.passEnv`, then `app.env`. Verifier credentials never pass.
 */
export function buildAppEnv(options: {
  baseEnv: NodeJS.ProcessEnv;
  passEnv: readonly string[];
  redact: readonly string[];
  extra: Record<string, string>;
}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const named = new Set(options.passEnv);
  const hidden = new Set(options.redact);
  for (const [key, value] of Object.entries(options.baseEnv)) {
    if (value === undefined) continue;
    if (named.has(key) || (!looksLikeCredential(key) && !hidden.has(key))) env[key] = value;
  }
  Object.assign(env, options.extra);
  for (const key of CREDENTIAL_ENV) delete env[key];
  return env;
}
