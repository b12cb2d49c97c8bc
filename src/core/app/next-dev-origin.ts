// Next.js dev (`next dev`, 15.2 and later; blocking by default in 16) serves its own dev resources
// (`/_next/…`: the page's client JavaScript, HMR) only to `localhost` and the hosts named in
// `allowedDevOrigins` in next.config. A browser sent to http://127.0.0.1:{port}/ gets the server-rendered
// HTML and nothing else: the page never hydrates, every click does nothing, and the verifier reports a
// product FAIL that no repair can fix. Doctor warns before a run (checkNextDevOrigin); an attempt that
// FAILs with Next's warning in its app log says so (blockedDevOriginHint). docs/config.md#nextjs-dev-and-appurl.
import { createReadStream } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fillPort } from '../../config/port-placeholder.js';

/** What `next dev` prints when it refuses a dev resource to a host it does not trust. */
export const NEXT_BLOCKED_MARK = 'Blocked cross-origin request to Next.js dev resource';

/** What is needed to tell whether a `next dev` app would refuse its own resources to app.url's host. */
export interface NextDevFacts {
  /** app.command as configured. */
  command: string;
  /** package.json `scripts` (empty when there is none). */
  scripts: Record<string, unknown>;
  /** app.url as configured (with `{port}`). */
  url: string;
  /** The text of the project's next.config.* (empty when there is none). */
  nextConfig: string;
}

// `next dev`, or a bare `next` (its default command is dev), possibly with options; not `next build`/`next start`.
const NEXT_DEV = /(?:^|[\s;&|(])next(?:\s+dev\b|\s+-|\s*(?:$|[;&|)]))/;
// `npm run dev -- …`, `npm start`, `pnpm dev`, `yarn dev`, `bun run dev`: the script it runs.
const SCRIPT = /\b(?:npm|pnpm|yarn|bun)\s+(?:run(?:-script)?\s+)?([\w:.-]+)/;

/** The host app.url names when it is not `localhost` and next.config does not name it in allowedDevOrigins, for an app run by `next dev`; else null. */
export function untrustedNextDevHost(facts: NextDevFacts): string | null {
  if (!runsNextDev(facts)) return null;
  let host: string;
  try {
    host = new URL(fillPort(facts.url, 3000)).hostname;
  } catch {
    return null; // the config's own check names a bad URL
  }
  if (host === 'localhost') return null;
  // Kept simple on purpose (documented): the word allowedDevOrigins and the host anywhere in the file.
  if (facts.nextConfig.includes('allowedDevOrigins') && facts.nextConfig.includes(host.replace(/^\[|\]$/g, ''))) return null;
  return host;
}

/** Whether app.command runs `next dev`, itself or through a package.json script. */
export function runsNextDev(facts: Pick<NextDevFacts, 'command' | 'scripts'>): boolean {
  const script = SCRIPT.exec(facts.command)?.[1];
  const scriptText = script ? facts.scripts[script] : undefined;
  return NEXT_DEV.test(facts.command) || (typeof scriptText === 'string' && NEXT_DEV.test(scriptText));
}

/** runsNextDev for the project at `root`; false without an app.command. */
export async function runsNextDevAt(root: string, command: string | undefined): Promise<boolean> {
  return command ? runsNextDev({ command, scripts: await readScripts(root) }) : false;
}

/** The text of `root`'s next.config.* files (js, mjs, cjs, ts, mts, cts), joined; empty when there is none. */
export async function readNextConfig(root: string): Promise<string> {
  const names = (await readdir(root).catch(() => [] as string[])).filter((name) => /^next\.config\.[cm]?[jt]s$/.test(name)).sort();
  const texts = await Promise.all(names.map((name) => readFile(path.join(root, name), 'utf8').catch(() => '')));
  return texts.join('\n');
}

/** untrustedNextDevHost for the project at `root` (its package.json scripts and next.config.*). */
export async function untrustedNextDevHostAt(root: string, app: { command: string; url: string }): Promise<string | null> {
  return untrustedNextDevHost({
    command: app.command,
    scripts: await readScripts(root),
    url: app.url,
    nextConfig: await readNextConfig(root),
  });
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

/**
 * When the app is run by `next dev` at a host it does not trust (`host`, from untrustedNextDevHost) and its
 * log holds Next's warning for that very host, the sentence an attempt's summary ends with (the likely
 * cause of a FAIL is the configuration, not the product); null otherwise. The log is the app's (the agent's
 * code): only the host we computed is quoted, never its text, and the hint never changes the verdict.
 * Reads the log line by line, stopping at the first match, so a long dev-server log costs no memory.
 */
export async function blockedDevOriginHint(appLog: string, host: string | null): Promise<string | null> {
  if (host === null) return null;
  const wanted = `from "${host.replace(/^\[|\]$/g, '')}"`;
  const lines = createInterface({ input: createReadStream(appLog), crlfDelay: Infinity });
  let found = false;
  try {
    for await (const line of lines) {
      if (!line.includes(NEXT_BLOCKED_MARK) || !line.includes(wanted)) continue;
      found = true;
      break;
    }
  } catch {
    return null; // no log (the app never started): nothing to say
  } finally {
    lines.close();
  }
  if (!found) return null;
  return (
    `likely a configuration cause, not the product: the app's log says Next.js blocked its own dev resources for "${host}" ` +
    `("${NEXT_BLOCKED_MARK}"), so the page's JavaScript never ran; set app.url to http://localhost:{port}/ ` +
    `or name the host in allowedDevOrigins in next.config (docs/config.md#nextjs-dev-and-appurl)`
  );
}
