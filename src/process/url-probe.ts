// Does something answer at a URL? One HTTP request with a short timeout.
import http from 'node:http';
import https from 'node:https';

export type ProbeResult = { answered: true; status: number } | { answered: false; error: string };

/** Sends one GET to `url`; any HTTP response counts as answered (the caller judges the status). */
export function probeUrl(url: string, timeoutMs = 1000): Promise<ProbeResult> {
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolve({ answered: false, error: 'invalid URL' });
      return;
    }
    const client = target.protocol === 'https:' ? https : http;
    const request = client.get(
      target,
      { timeout: timeoutMs, headers: { 'user-agent': 'elenchos-probe' }, rejectUnauthorized: false },
      (response) => {
        response.resume();
        resolve({ answered: true, status: response.statusCode ?? 0 });
      },
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ answered: false, error: error.code ?? error.message }));
  });
}
