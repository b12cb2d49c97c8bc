// Which Chromium the Playwright verifier launches: configured, from the environment, or the system's.
import { existsSync } from 'node:fs';

/** Where Debian/Ubuntu (and CI images) put Chromium. */
export const SYSTEM_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * `verifier.browserPath`, else `ELENCHOS_BROWSER_PATH`, else a system Chromium, else undefined
 * (Playwright then uses its own downloaded browser, if any). A configured path is passed on as given
 * even when it does not exist: Playwright's launch error names it, and that is a verifier error.
 */
export function resolveBrowserPath(configured: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (configured) return configured;
  const fromEnv = env.ELENCHOS_BROWSER_PATH;
  if (fromEnv) return fromEnv;
  return SYSTEM_CHROMIUM.find((candidate) => existsSync(candidate));
}
