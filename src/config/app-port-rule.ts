// The app's command and URL must agree on the port, or the run waits on a port nobody listens on.
import type { Config } from './config-schema.js';
import { PORT_PLACEHOLDER } from './port-placeholder.js';

// `{port}` is substituted by Elenchos; $PORT is the environment variable every app also receives.
const COMMAND_USES_PORT = /\{port\}|\$\{?PORT\b/;

/**
 * Problems (one line each, naming the fix) when `app.command` and `app.url` cannot both mean the
 * run's port. A mismatch is the configuration's fault: left alone, the run would wait on a URL the
 * app never serves and blame the product for it.
 */
export function appPortProblems(app: Config['app'], label: string): string[] {
  if (!app.command) return [];
  const commandPort = COMMAND_USES_PORT.test(app.command);
  const urlPort = app.url.includes(PORT_PLACEHOLDER);
  const problems: string[] = [];
  // With app.port 0 the run picks a new free port each time: only {port} (or $PORT) tells the app which.
  if (app.port === 0 && urlPort && !commandPort) {
    problems.push(
      `${label}: app.command "${app.command}" does not use {port}, but app.url waits on {port} (a free port each run); ` +
        'pass it to the app, e.g. "npm run dev -- --port {port}" or "PORT={port} npm start"',
    );
  }
  if (commandPort && !urlPort) {
    const fixed = fixedUrlPort(app.url);
    if (app.port === 0) {
      problems.push(
        `${label}: app.url "${app.url}" has no {port}, but app.command starts the app on {port} (a free port each run); write the URL with {port}, e.g. "http://127.0.0.1:{port}/"`,
      );
    } else if (fixed !== null && fixed !== app.port) {
      problems.push(
        `${label}: app.url "${app.url}" is on port ${fixed}, but app.command starts the app on app.port ${app.port}; write the URL with {port}, e.g. "http://127.0.0.1:{port}/"`,
      );
    }
  }
  return problems;
}

/** The URL's port (the scheme's default when it names none), or null when it does not parse. */
function fixedUrlPort(url: string): number | null {
  try {
    const parsed = new URL(url);
    if (parsed.port) return Number(parsed.port);
    return parsed.protocol === 'https:' ? 443 : parsed.protocol === 'http:' ? 80 : null;
  } catch {
    return null;
  }
}
