// The app's environment, one definition for runs and `doctor`: the caller's, minus every credential the
// config does not name (the app is agent-written code), plus app.env, PORT and ELENCHOS_APP_URL.
import { buildAppEnv } from '../../agents/agent-env.js';
import type { Config } from '../../config/config-schema.js';

/** The environment the app under test is started with (see buildAppEnv). */
export function appEnvironment(config: Config, baseEnv: NodeJS.ProcessEnv, port: number, url: string): NodeJS.ProcessEnv {
  const { app, redact } = config;
  return { ...buildAppEnv({ baseEnv, passEnv: app.passEnv, redact, extra: app.env }), PORT: String(port), ELENCHOS_APP_URL: url };
}
