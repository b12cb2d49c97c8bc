// The private Playwright transform cache: reused between Playwright processes of one Elenchos process only
// while nothing else touched it; anything written, replaced or chmod-ed in between makes a fresh one.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

type CacheModule = typeof import('../../src/verifiers/playwright/transform-cache.js');
let leaseTransformCache: CacheModule['leaseTransformCache'];
let signature: CacheModule['signature'];

// Each case starts with the module's pool empty, as a new Elenchos process does (its exit hook removes
// the folders each instance made).
beforeEach(async () => {
  vi.resetModules();
  ({ leaseTransformCache, signature } = await import('../../src/verifiers/playwright/transform-cache.js'));
});

/** What a Playwright process leaves in its cache: a compiled file under a two-letter folder. */
async function useOnce(): Promise<{ root: string; file: string }> {
  const lease = await leaseTransformCache();
  const file = path.join(lease.cache, 'ab', 'abcdef0123_1234567_xspec.js');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, 'compiled by Playwright\n');
  await lease.release();
  return { root: lease.root, file };
}

describe('the private transform cache', () => {
  it('is a fresh 0700 folder under the temp dir, and is reused while untouched', async () => {
    const { root } = await useOnce();
    expect(statSync(root).mode & 0o777).toBe(0o700);
    const again = await leaseTransformCache();
    expect(again.root).toBe(root);
    await again.release();
  });

  it('is never shared by two Playwright processes at once', async () => {
    const a = await leaseTransformCache();
    const b = await leaseTransformCache();
    expect(b.root).not.toBe(a.root);
    await a.release();
    await b.release();
  });

  const tamperings: [string, (root: string, file: string) => void][] = [
    [
      'a compiled file rewritten with the same size and its mtime put back',
      (_root, file) => {
        const before = statSync(file);
        writeFileSync(file, 'planted by an agent!!\n'.slice(0, before.size).padEnd(before.size, ' '));
        utimesSync(file, before.atime, before.mtime);
      },
    ],
    ['a new compiled file planted', (root) => writeFileSync(path.join(root, 'cache', 'ab', 'abcdef0123_7654321_xspec.js'), 'x')],
    [
      'a file replaced by a rename with the same bytes',
      (_root, file) => {
        const copy = `${file}.tmp`;
        writeFileSync(copy, readFileSync(file));
        renameSync(copy, file);
      },
    ],
    ['a folder made writable by others', (root) => chmodSync(root, 0o777)],
  ];

  it.each(tamperings)('is dropped for a fresh one after %s', async (_name, tamper) => {
    const { root, file } = await useOnce();
    tamper(root, file);
    const next = await leaseTransformCache();
    expect(next.root).not.toBe(root);
    expect(existsSync(root)).toBe(false);
    await next.release();
  });

  it('signs the same folder the same way, and a touched one differently', async () => {
    const { root, file } = await useOnce();
    const first = await signature(root);
    expect(await signature(root)).toBe(first);
    readFileSync(file); // reading (what Playwright does with a cached file) changes nothing
    expect(await signature(root)).toBe(first);
    writeFileSync(file, readFileSync(file));
    expect(await signature(root)).not.toBe(first);
    expect(await signature(path.join(root, 'gone'))).toBeNull();
  });
});
