// One rule for the environment of every child Elenchos starts: a common base every child needs to run
// anywhere (paths, locale, temp folders, proxies, TLS trust), and what differs per kind of child written
// as data beside it. Each child's environment is built from nothing: a variable reaches it only by a rule.
import { heldSecretEnv } from '../util/held-secrets.js';
import { CREDENTIAL_ENV, looksLikeCredential } from '../util/credentials.js';

/** Every child gets these from the caller's environment when they are set. */
const BASE_KEYS = [
  // who and where
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'TZ',
  // locale (and LC_* below)
  'LANG',
  'LANGUAGE',
  // temp folders
  'TMPDIR',
  'TMP',
  'TEMP',
  // proxies, both spellings (curl reads the lower-case ones, most others either)
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  // TLS trust (a company's CA)
  'NODE_EXTRA_CA_CERTS',
  'NODE_USE_SYSTEM_CA',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  // Windows basics, without which Node and browsers do not start there
  'SystemRoot',
  'SYSTEMROOT',
  'APPDATA',
  'LOCALAPPDATA',
  'USERPROFILE',
  'PATHEXT',
  'COMSPEC',
] as const;
const BASE_PREFIXES = ['LC_'] as const;

/** The signing key stays in Elenchos: no child of any kind gets it, whatever the config says. */
const SIGNING_KEY_ENV = 'ELENCHOS_SIGNING_KEY';

export type ChildKind = 'agent' | 'app' | 'setup' | 'kane' | 'playwright' | 'command-verifier';

export interface ChildEnvRule {
  /**
   * `base`: the base above and this kind's `keys` and `prefixes` only. `all`: every variable of the
   * caller (a command the user wrote, which may need anything of theirs), less what the rule drops.
   */
  inherit: 'base' | 'all';
  keys?: readonly string[];
  prefixes?: readonly string[];
  /** Leave out what looks like a credential (`*_TOKEN`, `*_KEY`, …) unless the user named it (`passEnv`). */
  dropCredentials: boolean;
  /** Never in this child's environment, even when named or set explicitly: removed last. */
  never: readonly string[];
}

/** What differs per kind of child. */
export const CHILD_ENV_RULES: Readonly<Record<ChildKind, ChildEnvRule>> = {
  // Agent-written code runs in the agent: no credential it was not given, never the verifier's or the
  // signing key. Each agent adapter adds its own keys (AWS_REGION, CLAUDE_CODE_…) when it starts one.
  agent: { inherit: 'base', dropCredentials: true, never: CREDENTIAL_ENV },
  // The app is agent-written code too, but it is the user's app: it keeps their environment, not its secrets.
  app: { inherit: 'all', dropCredentials: true, never: CREDENTIAL_ENV },
  // setup.command is the user's own (npm ci with a registry token): all of it but Elenchos's secrets.
  setup: { inherit: 'all', dropCredentials: false, never: CREDENTIAL_ENV },
  // Kane's own settings and its stored login (KANE_CLI_*, its XDG folders). LT_USERNAME / LT_ACCESS_KEY
  // become its --username / --access-key flags (kane-invocation.ts), so they stay out of its environment.
  kane: {
    inherit: 'base',
    prefixes: ['KANE_CLI_', 'KANE_DEV_MODE', 'KANE_TESTRUN_', 'XDG_'],
    dropCredentials: false,
    never: [SIGNING_KEY_ENV, 'LT_USERNAME', 'LT_ACCESS_KEY'],
  },
  // A headed browser's display, and where Playwright's browsers are installed. Not every PLAYWRIGHT_*:
  // PLAYWRIGHT_JSON_OUTPUT_FILE outranks the generated config and would move the report Elenchos reads.
  playwright: {
    inherit: 'base',
    keys: ['DISPLAY', 'WAYLAND_DISPLAY', 'XAUTHORITY', 'XDG_RUNTIME_DIR', 'PLAYWRIGHT_BROWSERS_PATH'],
    dropCredentials: false,
    never: [...CREDENTIAL_ENV, 'NODE_COMPILE_CACHE'],
  },
  // Any executable speaking the protocol: the base, then verifier.env and the ELENCHOS_* it reads. Never a
  // compile cache Node would trust (verifiers/command/no-bytecode.ts turns every such cache off).
  'command-verifier': { inherit: 'base', dropCredentials: false, never: [...CREDENTIAL_ENV, 'NODE_COMPILE_CACHE'] },
};

export interface ChildEnvOptions {
  /** The caller's environment (Elenchos's own, as run with). */
  baseEnv: NodeJS.ProcessEnv;
  /** More names and prefixes this one child passes (an agent adapter's own). */
  keys?: readonly string[];
  prefixes?: readonly string[];
  /** Names the user chose to pass (`agent.passEnv`, `app.passEnv`): passed even when they look like credentials. */
  passEnv?: readonly string[];
  /** Names listed in `redact`: an `all` child does not inherit them unless named in `passEnv`. */
  hidden?: readonly string[];
  /** Set over what is inherited, in order (the config's `env`, then Elenchos's own variables). */
  set?: readonly Record<string, string>[];
}

/** The complete environment of a child of `kind`: inherited by its rule, then `set`, less its `never`. */
export function childEnv(kind: ChildKind, options: ChildEnvOptions): NodeJS.ProcessEnv {
  const rule = CHILD_ENV_RULES[kind];
  const keys = new Set<string>([...BASE_KEYS, ...(rule.keys ?? []), ...(options.keys ?? [])]);
  const prefixes = [...BASE_PREFIXES, ...(rule.prefixes ?? []), ...(options.prefixes ?? [])];
  const named = new Set(options.passEnv ?? []);
  const hidden = new Set(options.hidden ?? []);
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(options.baseEnv)) {
    if (value === undefined) continue;
    const wanted = rule.inherit === 'all' ? !hidden.has(key) : keys.has(key) || prefixes.some((p) => key.startsWith(p));
    if (named.has(key) || (wanted && !(rule.dropCredentials && looksLikeCredential(key)))) env[key] = value;
  }
  for (const values of options.set ?? []) Object.assign(env, values);
  for (const key of [...rule.never, SIGNING_KEY_ENV, ...heldSecretEnv()]) delete env[key];
  return env;
}
