// Builds an agent's environment explicitly: what a shell tool needs, never the verifier's credentials.
import { CREDENTIAL_ENV } from '../util/credentials.js';

/** Variables every agent gets when they are set. */
const BASE_KEYS = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TMPDIR', 'TZ', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY'];

export interface AgentEnvOptions {
  baseEnv: NodeJS.ProcessEnv;
  /** Adapter-specific keys passed through (e.g. ANTHROPIC_API_KEY for claude). */
  passKeys?: readonly string[];
  /** Prefixes passed through (e.g. CLAUDE_ for claude). */
  passPrefixes?: readonly string[];
  /** Config `agent.env`. */
  extra: Record<string, string>;
  /** ELENCHOS_* variables describing the attempt. */
  elenchos: Record<string, string>;
}

/** The complete environment of an agent process. */
export function buildAgentEnv(options: AgentEnvOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const pass = new Set([...BASE_KEYS, ...(options.passKeys ?? [])]);
  for (const [key, value] of Object.entries(options.baseEnv)) {
    if (value === undefined) continue;
    if (pass.has(key) || (options.passPrefixes ?? []).some((p) => key.startsWith(p))) env[key] = value;
  }
  Object.assign(env, options.extra, options.elenchos);
  for (const key of CREDENTIAL_ENV) delete env[key];
  return env;
}
