// The sandbox's quarantine for new git objects: what the agent writes there reaches the store only
// when its content hashes to its name, and never replaces an object the store has.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { git } from '../../src/git/git.js';
import { openObjectQuarantine, releaseHeldObjects, settleObjectQuarantine } from '../../src/git/object-quarantine.js';
import { gitSync, tempDir, tempRepo } from '../helpers/temp.js';
import { collectGarbage } from '../../src/core/stored-runs/gc.js';

/** git in `root` writing its new objects to `quarantine`, the store its alternate: as inside the sandbox. */
function gitInto(root: string, quarantine: string, objects: string, args: string[], input?: string): string {
  return execFileSync('git', args, {
    cwd: root,
    input,
    encoding: 'utf8',
    env: { ...process.env, GIT_OBJECT_DIRECTORY: quarantine, GIT_ALTERNATE_OBJECT_DIRECTORIES: objects },
  }).trim();
}

/** Writes a loose object file holding `content` (a blob) under the id `id`, as an agent can. */
function forgeLoose(objects: string, id: string, content: string, tail = Buffer.alloc(0)): void {
  mkdirSync(path.join(objects, id.slice(0, 2)), { recursive: true });
  const body = Buffer.concat([Buffer.from(`blob ${Buffer.byteLength(content)}\0`), Buffer.from(content)]);
  const tmp = path.join(objects, id.slice(0, 2), 'forging');
  writeFileSync(tmp, Buffer.concat([deflateSync(body), tail]));
  renameSync(tmp, path.join(objects, id.slice(0, 2), id.slice(2)));
}

describe('settleObjectQuarantine', () => {
  it('copies honest new objects in and removes the quarantine', async () => {
    const root = tempRepo({ 'page.html': '<h1>Tasks</h1>\n' });
    const q = await openObjectQuarantine(root);
    expect(path.basename(q.dir)).toMatch(/^incoming-/);
    const blob = gitInto(root, q.dir, q.objects, ['hash-object', '-w', '--stdin'], 'new page\n');
    const known = gitInto(root, q.dir, q.objects, ['hash-object', '-w', '--stdin'], '<h1>Tasks</h1>\n');
    expect(existsSync(path.join(q.objects, blob.slice(0, 2), blob.slice(2)))).toBe(false);
    const settled = await settleObjectQuarantine(root, q);
    expect(settled.forged).toEqual([]);
    expect(settled.kept).toBe(1);
    expect(gitSync(root, 'cat-file', 'blob', blob)).toBe('new page\n');
    expect(gitSync(root, 'cat-file', 'blob', known)).toBe('<h1>Tasks</h1>\n');
    expect(existsSync(q.dir)).toBe(false);
  });

  it('refuses an object whose content is not its id, and the store keeps its own', async () => {
    const root = tempRepo({ 'page.html': '<h1>Tasks</h1>\n' });
    const id = gitSync(root, 'rev-parse', 'HEAD:page.html').trim();
    const q = await openObjectQuarantine(root);
    forgeLoose(q.dir, id, '<h1>Tasks</h1><ul><li>Buy milk</li></ul>\n');
    const unknown = 'ab'.padEnd(40, '7');
    forgeLoose(q.dir, unknown, 'anything');
    const settled = await settleObjectQuarantine(root, q);
    expect(settled.forged.sort()).toEqual([id, unknown].sort());
    expect(settled.kept).toBe(0);
    expect(gitSync(root, 'cat-file', 'blob', id)).toBe('<h1>Tasks</h1>\n');
    expect(existsSync(path.join(q.objects, 'ab', unknown.slice(2)))).toBe(false);
  });

  it('refuses a symlink, a FIFO and bytes after the zlib stream in place of an object', async () => {
    const root = tempRepo({ 'page.html': '<h1>Tasks</h1>\n' });
    const q = await openObjectQuarantine(root);
    const real = gitInto(root, q.dir, q.objects, ['hash-object', '--stdin'], 'linked\n');
    writeFileSync(path.join(q.dir, 'elsewhere'), 'x');
    mkdirSync(path.join(q.dir, real.slice(0, 2)), { recursive: true });
    symlinkSync(path.join(q.dir, 'elsewhere'), path.join(q.dir, real.slice(0, 2), real.slice(2)));
    const tailed = gitInto(root, q.dir, q.objects, ['hash-object', '--stdin'], 'tailed\n');
    forgeLoose(q.dir, tailed, 'tailed\n', Buffer.from('garbage'));
    const fifo = gitInto(root, q.dir, q.objects, ['hash-object', '--stdin'], 'fifo\n');
    mkdirSync(path.join(q.dir, fifo.slice(0, 2)), { recursive: true });
    execFileSync('mkfifo', [path.join(q.dir, fifo.slice(0, 2), fifo.slice(2))]);
    const settled = await settleObjectQuarantine(root, q);
    expect(settled.forged.sort()).toEqual([real, tailed, fifo].sort());
    expect(settled.kept).toBe(0);
  });

  it('takes a pack by what git indexes in it, never by the index the agent wrote', async () => {
    const root = tempRepo({ 'page.html': '<h1>Tasks</h1>\n' });
    const q = await openObjectQuarantine(root);
    const honest = gitInto(root, q.dir, q.objects, ['hash-object', '-w', '--stdin'], 'packed page\n');
    const packDir = path.join(q.dir, 'pack');
    mkdirSync(packDir);
    const name = gitInto(root, q.dir, q.objects, ['pack-objects', path.join(packDir, 'pack')], `${honest}\n`);
    rmSync(path.join(q.dir, honest.slice(0, 2)), { recursive: true }); // only the pack holds it now
    // The agent's index claims the base commit's blob where its pack holds the packed page.
    const base = gitSync(root, 'rev-parse', 'HEAD:page.html').trim();
    const idx = path.join(packDir, `pack-${name}.idx`);
    const bytes = Buffer.from(readFileSync(idx));
    Buffer.from(base, 'hex').copy(bytes, 8 + 256 * 4);
    writeFileSync(idx, bytes);
    const settled = await settleObjectQuarantine(root, q);
    expect(settled.forged).toEqual([base]);
    expect(settled.kept).toBe(1);
    expect(gitSync(root, 'cat-file', 'blob', honest)).toBe('packed page\n');
    expect(gitSync(root, 'cat-file', 'blob', base)).toBe('<h1>Tasks</h1>\n');
    expect(readdirSync(path.join(q.objects, 'pack')).filter((f) => f.startsWith('tmp_'))).toEqual([]);
  });
});

describe("a run's held objects", () => {
  it("checked objects wait in the run's held folder, read by Elenchos's git but not the store's, and join the store when the run releases them", async () => {
    const root = tempRepo({ 'page.html': '<h1>Tasks</h1>\n' });
    const q = await openObjectQuarantine(root, 'run-a');
    expect(path.relative(q.objects, q.dir)).toMatch(/^elenchos-private\/run-a\/incoming-/);
    expect(path.relative(q.objects, q.into)).toBe('elenchos-private/run-a/held');
    const blob = gitInto(root, q.dir, q.objects, ['hash-object', '-w', '--stdin'], 'work of a\n');
    expect((await settleObjectQuarantine(root, q)).kept).toBe(1);
    expect(existsSync(path.join(q.into, blob.slice(0, 2), blob.slice(2)))).toBe(true);
    // Not in the store (where a rival's sandbox would see it), yet every git call of Elenchos reads it.
    expect(existsSync(path.join(q.objects, blob.slice(0, 2), blob.slice(2)))).toBe(false);
    expect(() => gitSync(root, 'cat-file', '-e', blob)).toThrow();
    expect(await git(['cat-file', 'blob', blob], { cwd: root })).toBe('work of a\n');
    // A second turn's quarantine settles into the same held folder.
    const second = await openObjectQuarantine(root, 'run-a');
    expect(second.into).toBe(q.into);
    await settleObjectQuarantine(root, second);

    expect(await releaseHeldObjects(root, 'run-a')).toMatchObject({ kept: 1, forged: [] });
    expect(gitSync(root, 'cat-file', 'blob', blob)).toBe('work of a\n');
    expect(existsSync(path.join(q.objects, 'elenchos-private', 'run-a'))).toBe(false);
    // Released twice (a best-of run's end after its candidate's), or never held: nothing happens.
    expect(await releaseHeldObjects(root, 'run-a')).toEqual({ kept: 0, known: 0, forged: [] });
  });

  it('gc moves the held objects of a run that died (no live run names them) into the store', async () => {
    const root = tempRepo({ 'page.html': '<h1>Tasks</h1>\n' });
    const q = await openObjectQuarantine(root, 'run-that-died');
    const blob = gitInto(root, q.dir, q.objects, ['hash-object', '-w', '--stdin'], 'held when it died\n');
    await settleObjectQuarantine(root, q);
    await collectGarbage({ cwd: root, env: { HOME: tempDir() } });
    expect(gitSync(root, 'cat-file', 'blob', blob)).toBe('held when it died\n');
    expect(readdirSync(path.join(q.objects, 'elenchos-private'))).toEqual([]);
  });
});
