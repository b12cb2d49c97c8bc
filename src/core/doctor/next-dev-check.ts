// Doctor's word on a `next dev` app reached at a host Next.js does not serve its dev resources to
// (core/app/next-dev-origin.ts): every click would do nothing, and runs would FAIL for a reason no repair fixes.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config/config-schema.js';
import { readNextConfig, untrustedNextDevHost } from '../app/next-dev-origin.js';
import { warn, type DoctorCheck } from './doctor-check.js';

/** A warning when app.command runs `next dev` and app.url's host is neither localhost nor in next.config's allowedDevOrigins; else null. */
export async function checkNextDevOrigin(root: string, app: Pick<Config['app'], 'command' | 'url'>): Promise<DoctorCheck | null> {
  if (!app.command) return null;
  const host = untrustedNextDevHost({
    command: app.command,
    scripts: await readScripts(root),
    url: app.url,
    nextConfig: await readNextConfig(root),
  });
  if (host === null) return null;
  return warn(
    'next dev',
    `app.url's host ${host} is not localhost, and next dev serves its /_next/ resources (the page's JavaScript) only to localhost and the hosts in allowedDevOrigins: pages would render but never hydrate, so clicks do nothing and runs FAIL`,
    `set app.url to "http://localhost:{port}/" in the config, or add '${host}' to allowedDevOrigins in next.config (docs/config.md#nextjs-dev-and-appurl)`,
  );
}

async function readScripts(root: string): Promise<Record<string, unknown>> {
  try {
    const manifest: unknown = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
    const scripts = (manifest as { scripts?: unknown } | null)?.scripts;
    return typeof scripts === 'object' && scripts !== null ? (scripts as Record<string, unknown>) : {};
  } catch {
    return {}; // no package.json, or one npm would refuse anyway
  }
}
