// Readiness of the app under test: its port accepts and its URL answers an HTTP GET below 500. The
// first seconds are plain GETs (url-probe.ts); a slower app is then waited for by wait-on.
import { setTimeout as sleep } from 'node:timers/promises';
import { probeUrl } from './url-probe.js';

/** wait-on offers no cancel: it polls in slices this long, so that a finished race stops it soon. */
const SLICE_MS = 500;

/**
 * How long plain GETs poll before wait-on takes over. wait-on brings axios, joi and rxjs: loading them
 * costs about 0.6 s of CPU (measured at load 8), more than the whole wait of an app that is up within
 * a second or two (most apps: the bench's server answers in ~0.3 s). A plain `http.get` costs ~20 ms
 * of CPU to load and send, so the common case never loads wait-on; a slower app (a dev server building)
 * gets wait-on, whose load is then small beside the wait and is not counted against the deadline.
 */
export const PLAIN_PROBE_MS = 2000;

// Loaded only for an app that is not up within PLAIN_PROBE_MS.
type WaitOn = typeof import('wait-on');
let waitOnModule: Promise<{ default: WaitOn }> | null = null;
const loadWaitOn = () => (waitOnModule ??= import('wait-on'));

/** Whether this process has loaded wait-on (tests: a fast app must not pay for it). */
export function waitOnLoaded(): boolean {
  return waitOnModule !== null;
}

export interface WaitReadyOptions {
  /** Epoch milliseconds after which the URL counts as never ready. */
  deadline: number;
  /** Stops polling (the app exited, or the run was interrupted). */
  signal: AbortSignal;
  intervalMs?: number;
  /** How long plain GETs poll before wait-on (tests); PLAIN_PROBE_MS by default. */
  plainMs?: number;
}

/** True once `url` accepts connections and answers an HTTP GET below 500 (a 404 or a redirect is a
 * running app); false at the deadline, on abort, or for a URL that is not http(s). */
export async function waitUntilReady(url: string, options: WaitReadyOptions): Promise<boolean> {
  const resources = readinessResources(url);
  if (resources === null) return false;
  const interval = options.intervalMs ?? 25;
  const plainUntil = Math.min(options.deadline, Date.now() + (options.plainMs ?? PLAIN_PROBE_MS));
  // The same question wait-on asks below: a GET (not HEAD), no proxy (node:http reads no HTTP_PROXY),
  // no redirect followed, any certificate (wait-on's strictSSL is false by default), status < 500.
  while (!options.signal.aborted && Date.now() < plainUntil) {
    const probe = await probeUrl(url, Math.max(1, Math.min(1000, options.deadline - Date.now())));
    if (probe.answered && probe.status < 500) return true;
    await sleep(interval, undefined, { signal: options.signal }).catch(() => undefined); // an abort ends the loop
  }
  if (options.signal.aborted || Date.now() >= options.deadline) return false;
  // wait-on's load is our own start-up, not the app's: it does not count against the deadline.
  const loading = Date.now();
  const { default: waitOn } = await loadWaitOn();
  const deadline = options.deadline + (Date.now() - loading);
  while (!options.signal.aborted) {
    const left = deadline - Date.now();
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
