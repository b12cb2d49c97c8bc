// Does something answer at a URL? One HTTP request with a short timeout.
import http from 'node:http';
import https from 'node:https';

export type ProbeResult = { answered: true; status: number } | { answered: false; error: string };

// What a browser's navigation asks for: dev servers (Vite 4) answer a page only to an HTML Accept header.
export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/**
 * Sends one GET to `url`; any HTTP response counts as answered (the caller judges the status). `accept`:
 * the Accept header (none by default; BROWSER_ACCEPT to ask as a page load does).
 */
export function probeUrl(url: string, timeoutMs = 1000, accept?: string): Promise<ProbeResult> {
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
      { timeout: timeoutMs, headers: { 'user-agent': 'elenchos-probe', ...(accept ? { accept } : {}) }, rejectUnauthorized: false },
      (response) => {
        response.resume();
        resolve({ answered: true, status: response.statusCode ?? 0 });
      },
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ answered: false, error: error.code ?? error.message }));
  });
}
