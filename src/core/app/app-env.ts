// The app's environment, one definition for runs and `doctor`: the caller's, minus every credential the
// config does not name (the app is agent-written code), plus app.env, PORT and ELENCHOS_APP_URL.
import type { Config } from '../../config/config-schema.js';
import { childEnv } from '../../process/child-env.js';

/** The environment the app under test is started with (the `app` rule of process/child-env.ts). */
export function appEnvironment(config: Config, baseEnv: NodeJS.ProcessEnv, port: number, url: string): NodeJS.ProcessEnv {
  const { app, redact } = config;
  const env = childEnv('app', { baseEnv, passEnv: app.passEnv, hidden: redact, set: [app.env] });
  return { ...env, PORT: String(port), ELENCHOS_APP_URL: url };
}
