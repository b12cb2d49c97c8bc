// One environment rule for every child: the base each needs to run anywhere, and per kind what it may
// have beyond that. The attacks: a child reading a credential it was not given, or the signing key.
import { describe, expect, it } from 'vitest';
import { CHILD_ENV_RULES, childEnv, type ChildKind } from '../../src/process/child-env.js';

const KINDS = Object.keys(CHILD_ENV_RULES) as ChildKind[];

/** What a developer behind a company proxy has, with credentials of every kind beside it. */
const CALLER: NodeJS.ProcessEnv = {
  PATH: '/usr/bin',
  HOME: '/home/ada',
  TERM: 'xterm',
  LANG: 'C.UTF-8',
  LC_MESSAGES: 'C',
  TMPDIR: '/tmp/a',
  TMP: '/tmp/b',
  TEMP: '/tmp/c',
  HTTPS_PROXY: 'http://proxy:3128',
  https_proxy: 'http://proxy:3128',
  NO_PROXY: '127.0.0.1,localhost',
  SSL_CERT_FILE: '/etc/corp-ca.pem',
  NODE_EXTRA_CA_CERTS: '/etc/corp-ca.pem',
  DISPLAY: ':0',
  MY_APP_MODE: 'dev',
  GITHUB_TOKEN: 'ghp_0123456789',
  NPM_TOKEN: 'npm_0123456789',
  AWS_SECRET_ACCESS_KEY: 'aws-0123456789',
  LT_USERNAME: 'ann',
  LT_ACCESS_KEY: 'lt-0123456789',
  KANE_CLI_ACCESS_KEY: 'kane-0123456789',
  KANE_CLI_CDP_TIMEOUT_MS: '60000',
  ELENCHOS_SIGNING_KEY: 'sign-0123456789',
  PLAYWRIGHT_BROWSERS_PATH: '/opt/pw',
  PLAYWRIGHT_JSON_OUTPUT_FILE: '/tmp/elsewhere.json',
};

describe('the base every child gets', () => {
  it.each(KINDS)('%s runs behind the proxy, with the CA, the temp folders and the locale', (kind) => {
    const env = childEnv(kind, { baseEnv: CALLER });
    for (const key of ['PATH', 'HOME', 'TERM', 'LANG', 'LC_MESSAGES', 'TMPDIR', 'TMP', 'TEMP', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY'])
      expect(env[key], `${kind} ${key}`).toBe(CALLER[key]);
    expect(env.SSL_CERT_FILE).toBe('/etc/corp-ca.pem');
    expect(env.NODE_EXTRA_CA_CERTS).toBe('/etc/corp-ca.pem');
  });

  it.each(KINDS)('%s never gets the signing key, even set or named explicitly', (kind) => {
    const env = childEnv(kind, {
      baseEnv: CALLER,
      passEnv: ['ELENCHOS_SIGNING_KEY'],
      set: [{ ELENCHOS_SIGNING_KEY: 'sign-0123456789' }],
    });
    expect(env.ELENCHOS_SIGNING_KEY).toBeUndefined();
  });
});

describe('what differs per kind', () => {
  it('the agent: no credential it was not given; what passEnv names; never the verifier credentials', () => {
    const env = childEnv('agent', { baseEnv: CALLER, keys: ['AWS_SECRET_ACCESS_KEY'], passEnv: ['GITHUB_TOKEN', 'LT_ACCESS_KEY'] });
    expect(env.GITHUB_TOKEN).toBe('ghp_0123456789');
    // An adapter's own key that looks like a credential passes only when the user names it.
    expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    for (const key of ['NPM_TOKEN', 'LT_USERNAME', 'LT_ACCESS_KEY', 'KANE_CLI_ACCESS_KEY', 'MY_APP_MODE', 'DISPLAY'])
      expect(env[key], key).toBeUndefined();
  });

  it('the app: the user environment less what looks like a credential or is listed in redact, unless named', () => {
    const env = childEnv('app', { baseEnv: CALLER, passEnv: ['NPM_TOKEN'], hidden: ['MY_APP_MODE', 'NPM_TOKEN'], set: [{ A: '1' }] });
    expect(env).toMatchObject({ DISPLAY: ':0', NPM_TOKEN: 'npm_0123456789', A: '1' });
    for (const key of ['MY_APP_MODE', 'GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'LT_ACCESS_KEY', 'KANE_CLI_ACCESS_KEY'])
      expect(env[key], key).toBeUndefined();
  });

  it("setup: the user's own command keeps their registry token, never Elenchos's secrets", () => {
    const env = childEnv('setup', { baseEnv: CALLER });
    expect(env).toMatchObject({ NPM_TOKEN: 'npm_0123456789', MY_APP_MODE: 'dev' });
    for (const key of ['LT_USERNAME', 'LT_ACCESS_KEY', 'KANE_CLI_ACCESS_KEY', 'ELENCHOS_SIGNING_KEY'])
      expect(env[key], key).toBeUndefined();
  });

  it('Kane: its own KANE_CLI_* (its stored key among them), never LT_* (they become flags) nor anything else', () => {
    const env = childEnv('kane', { baseEnv: CALLER, set: [{ LT_ACCESS_KEY: 'set-in-verifier-env' }] });
    expect(env).toMatchObject({ KANE_CLI_ACCESS_KEY: 'kane-0123456789', KANE_CLI_CDP_TIMEOUT_MS: '60000' });
    for (const key of ['LT_USERNAME', 'LT_ACCESS_KEY', 'GITHUB_TOKEN', 'NPM_TOKEN', 'MY_APP_MODE', 'DISPLAY'])
      expect(env[key], key).toBeUndefined();
  });

  it("Playwright: the display and its browsers' folder, not a PLAYWRIGHT_* that would move Elenchos's report", () => {
    const env = childEnv('playwright', { baseEnv: CALLER });
    expect(env).toMatchObject({ DISPLAY: ':0', PLAYWRIGHT_BROWSERS_PATH: '/opt/pw' });
    for (const key of ['PLAYWRIGHT_JSON_OUTPUT_FILE', 'GITHUB_TOKEN', 'LT_ACCESS_KEY', 'KANE_CLI_ACCESS_KEY', 'MY_APP_MODE'])
      expect(env[key], key).toBeUndefined();
  });

  it('the command verifier: the base, then what is set for it, in order', () => {
    const env = childEnv('command-verifier', { baseEnv: CALLER, set: [{ A: 'config', B: 'config' }, { B: 'elenchos' }] });
    expect(env).toMatchObject({ A: 'config', B: 'elenchos' });
    for (const key of ['GITHUB_TOKEN', 'LT_ACCESS_KEY', 'KANE_CLI_ACCESS_KEY', 'MY_APP_MODE', 'DISPLAY'])
      expect(env[key], key).toBeUndefined();
  });

  // A compile cache is code Node runs without reading the source again: a verifier never gets one it could be
  // handed (the command verifier's bytecode-free environment is verifiers/command/no-bytecode.ts).
  it('no verifier gets NODE_COMPILE_CACHE, even from verifier.env', () => {
    for (const kind of ['command-verifier', 'playwright'] as const)
      expect(childEnv(kind, { baseEnv: CALLER, set: [{ NODE_COMPILE_CACHE: '.cache' }] }).NODE_COMPILE_CACHE, kind).toBeUndefined();
  });
});
