// The app's environment, one definition for runs and `doctor`: the caller's, minus verifier credentials
// and configured secrets (the app is agent-written code), plus app.env, PORT and ELENCHOS_APP_URL.
import type { Config } from '../config/config-schema.js';
import { CREDENTIAL_ENV } from '../util/credentials.js';

/** The environment the app under test is started with. */
export function appEnvironment(config: Config, baseEnv: NodeJS.ProcessEnv, port: number, url: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...baseEnv };
  for (const key of [...CREDENTIAL_ENV, ...config.redact]) delete env[key];
  return { ...env, ...config.app.env, PORT: String(port), ELENCHOS_APP_URL: url };
}
