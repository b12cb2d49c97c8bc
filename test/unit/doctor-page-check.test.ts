// doctor's app line after the app started: a page request asked as a browser asks, and a mark that matches the answer.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageCheck } from '../../src/core/doctor/app-probe.js';
import { BROWSER_ACCEPT, probeUrl } from '../../src/process/url-probe.js';

// Vite 4's dev server: the page only to a request that accepts HTML, 404 otherwise.
let server: http.Server;
let url: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    res.statusCode = (req.headers.accept ?? '').includes('text/html') ? 200 : 404;
    res.end('<!doctype html><title>app</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("doctor's page request", () => {
  it('asks for HTML as a browser does, so an app that serves pages only to browsers answers 200', async () => {
    expect(await probeUrl(url, 2000)).toEqual({ answered: true, status: 404 });
    expect(await probeUrl(url, 2000, BROWSER_ACCEPT)).toEqual({ answered: true, status: 200 });
  });

  it('is ✓ only for a page; a 4xx is a warning, a 5xx a failure, no answer a warning', () => {
    const check = (answer: Parameters<typeof pageCheck>[0]) => pageCheck(answer, 'started', 'HEAD abc');
    expect(check({ answered: true, status: 200 })).toMatchObject({
      status: 'ok',
      message: 'started, then HTTP 200 to a page request (HEAD abc)',
    });
    expect(check({ answered: true, status: 302 }).status).toBe('ok');
    expect(check({ answered: true, status: 404 })).toMatchObject({
      status: 'warn',
      message: 'started, but HTTP 404 to a page request (HEAD abc)',
    });
    expect(check({ answered: true, status: 500 }).status).toBe('fail');
    expect(check({ answered: false, error: 'timed out' })).toMatchObject({ status: 'warn' });
  });
});
