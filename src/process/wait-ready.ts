// Readiness of the app under test, by wait-on: its port accepts (TCP) and its URL answers (HTTP GET).

/** wait-on offers no cancel: it polls in slices this long, so that a finished race stops it soon. */
const SLICE_MS = 500;

// Loaded only for an app: wait-on brings axios, joi and rxjs, which nothing else needs.
type WaitOn = typeof import('wait-on');
let waitOnModule: Promise<{ default: WaitOn }> | null = null;
const loadWaitOn = () => (waitOnModule ??= import('wait-on'));

/** Starts loading wait-on in the background, so that it is ready when the app starts. */
export function preloadReadiness(): void {
  loadWaitOn().catch(() => undefined); // a failure surfaces where it is awaited
}

/** Resolves once wait-on is loaded: the app's readiness clock must not count our own start-up. */
export async function prepareReadiness(): Promise<void> {
  await loadWaitOn();
}

export interface WaitReadyOptions {
  /** Epoch milliseconds after which the URL counts as never ready. */
  deadline: number;
  /** Stops polling (the app exited, or the run was interrupted). */
  signal: AbortSignal;
  intervalMs?: number;
}

/** True once `url` accepts connections and answers an HTTP GET below 500 (a 404 or a redirect is a
 * running app); false at the deadline, on abort, or for a URL wait-on cannot poll. */
export async function waitUntilReady(url: string, options: WaitReadyOptions): Promise<boolean> {
  const resources = readinessResources(url);
  if (resources === null) return false;
  const { default: waitOn } = await loadWaitOn();
  const interval = options.intervalMs ?? 25;
  while (!options.signal.aborted) {
    const left = options.deadline - Date.now();
    if (left <= 0) return false;
    try {
      await waitOn({
        resources,
        timeout: Math.min(SLICE_MS, left),
        interval,
        // Once up is up: no stabilisation wait beyond one interval (wait-on's floor).
        window: interval,
        simultaneous: 1,
        httpTimeout: 1000,
        tcpTimeout: 300,
        // A loopback probe must never go through HTTP(S)_PROXY, nor follow a redirect elsewhere.
        proxy: false,
        followRedirect: false,
        validateStatus: (status) => status < 500,
        headers: { 'user-agent': 'elenchos-probe' },
      });
      return true;
    } catch (error) {
      if (!/timed out/i.test((error as Error).message)) return false;
    }
  }
  return false;
}

/** `tcp:host:port` and `http-get://…` (wait-on's `http:` would send HEAD, which some dev servers refuse). */
export function readinessResources(url: string): string[] | null {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return null;
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return null;
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  return [`tcp:${target.hostname}:${port}`, `${target.protocol.slice(0, -1)}-get://${target.host}${target.pathname}${target.search}`];
}
