// Doctor's word on a `next dev` app reached at a host Next.js does not serve its dev resources to
// (core/app/next-dev-origin.ts): every click would do nothing, and runs would FAIL for a reason no repair fixes.
import type { Config } from '../../config/config-schema.js';
import { untrustedNextDevHostAt } from '../app/next-dev-origin.js';
import { warn, type DoctorCheck } from './doctor-check.js';

/** A warning when app.command runs `next dev` and app.url's host is neither localhost nor in next.config's allowedDevOrigins; else null. */
export async function checkNextDevOrigin(root: string, app: Pick<Config['app'], 'command' | 'url'>): Promise<DoctorCheck | null> {
  if (!app.command) return null;
  const host = await untrustedNextDevHostAt(root, { command: app.command, url: app.url });
  if (host === null) return null;
  return warn(
    'next dev',
    `app.url's host ${host} is not localhost, and next dev serves its /_next/ resources (the page's JavaScript) only to localhost and the hosts in allowedDevOrigins: pages would render but never hydrate, so clicks do nothing and runs FAIL`,
    `set app.url to "http://localhost:{port}/" in the config, or add '${host}' to allowedDevOrigins in next.config (docs/config.md#nextjs-dev-and-appurl)`,
  );
}
