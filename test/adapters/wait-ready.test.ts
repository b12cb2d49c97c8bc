// Readiness against real servers (plain GETs first, wait-on for a slower app): a GET below 500 is ready.
import http from 'node:http';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { readinessResources, waitOnLoaded, waitUntilReady } from '../../src/process/wait-ready.js';

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
  // First in this file: nothing before it may have loaded wait-on in this module instance.
  it('does not load wait-on for an app that answers at once (its load would cost more than the wait)', async () => {
    const url = await serve(200);
    expect(await waitUntilReady(url, { deadline: Date.now() + 20_000, signal: new AbortController().signal })).toBe(true);
    expect(waitOnLoaded()).toBe(false);
  });

  it("never takes a proxy's answer for the app: HTTP_PROXY is not used by the plain GETs", async () => {
    const proxy = await serve(200);
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy };
    process.env.HTTP_PROXY = process.env.http_proxy = new URL(proxy).origin;
    try {
      const closed = await freePort();
      const ready = await waitUntilReady(`http://127.0.0.1:${closed}/`, {
        deadline: Date.now() + 800,
        signal: new AbortController().signal,
        plainMs: 800,
      });
      expect(ready).toBe(false);
    } finally {
      for (const [key, value] of Object.entries(saved))
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
    }
  });

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

  // Last: it loads wait-on.
  it('hands a slower app over to wait-on, and waits for it until it answers', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const server = http.createServer((_q, r) => r.end('up'));
    servers.push(server);
    // The app listens only after the plain GETs gave up (plainMs 300): wait-on must be what sees it.
    const later = setTimeout(() => server.listen(port, '127.0.0.1'), 1200);
    try {
      const ready = await waitUntilReady(url, { deadline: Date.now() + 30_000, signal: new AbortController().signal, plainMs: 300 });
      expect(ready).toBe(true);
      expect(waitOnLoaded()).toBe(true);
    } finally {
      clearTimeout(later);
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
