// Readiness by wait-on against real servers: a port that accepts and a GET below 500 is ready.
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { readinessResources, waitUntilReady } from '../../src/process/wait-ready.js';

const servers: http.Server[] = [];
afterAll(() => servers.forEach((s) => s.close()));

async function serve(status: number): Promise<string> {
  const server = http.createServer((_q, r) => {
    r.statusCode = status;
    r.end('x');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/app?x=1`;
}

describe('waitUntilReady', () => {
  it('polls the port over TCP and the URL by GET (wait-on would send HEAD for http:)', () => {
    expect(readinessResources('http://127.0.0.1:3000/a?b=1')).toEqual(['tcp:127.0.0.1:3000', 'http-get://127.0.0.1:3000/a?b=1']);
    expect(readinessResources('https://localhost/')).toEqual(['tcp:localhost:443', 'https-get://localhost/']);
    expect(readinessResources('ftp://x/')).toBeNull();
    expect(readinessResources('not a url')).toBeNull();
  });

  it('counts any answer below 500 as ready (a 404 root is a running app)', async () => {
    const url = await serve(404);
    expect(await waitUntilReady(url, { deadline: Date.now() + 20_000, signal: new AbortController().signal })).toBe(true);
  });

  it('is not ready at the deadline while the app answers 503', async () => {
    const url = await serve(503);
    const started = Date.now();
    expect(await waitUntilReady(url, { deadline: Date.now() + 1500, signal: new AbortController().signal })).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
  });

  it('stops polling when the race is over (the app exited, an interrupt)', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    expect(await waitUntilReady('http://127.0.0.1:9/', { deadline: Date.now() + 30_000, signal: controller.signal })).toBe(false);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
