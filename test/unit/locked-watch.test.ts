import { chmodSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockContract, statContract, touchedBetween } from '../../src/core/lock/contract-lock.js';
import { rewrittenByContent, watchLocked } from '../../src/core/lock/locked-watch.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

async function project() {
  const root = tempDir();
  writeFiles(root, {
    'tasks/t.json': '{ "id": "t" }',
    'tests/t.spec.ts': 'test()\n',
    '.svelte-kit/tsconfig.json': '{ "compilerOptions": {} }\n',
  });
  const locked = await lockContract({
    root,
    taskLabel: 'tasks/t.json',
    testLabel: 'tests/t.spec.ts',
    extra: ['.svelte-kit/tsconfig.json'],
  });
  return { root, locked };
}

/** Writes, then waits until the watch has looked at the result (a marker, never a sleep). */
function lookAfter(file: string, watchSeen: Promise<unknown>, write: () => void): Promise<unknown> {
  write();
  return watchSeen;
}

describe('the locked files judged by content over the window', () => {
  it('a same-bytes rewrite (a dev server regenerating its tsconfig) moves the stamp but is no change', async () => {
    const { root, locked } = await project();
    const file = '.svelte-kit/tsconfig.json';
    let seen!: () => void;
    const looked = new Promise<void>((resolve) => (seen = resolve));
    const watch = watchLocked(locked, root, (f, same) => f === file && same && seen());
    const before = await statContract(locked, root);
    // As Vite's SvelteKit plugin does: write a temporary file and rename it over the old one (another inode).
    await lookAfter(file, looked, () => {
      writeFileSync(path.join(root, `${file}.tmp`), '{ "compilerOptions": {} }\n');
      renameSync(path.join(root, `${file}.tmp`), path.join(root, file));
    });
    const moved = touchedBetween(before, await statContract(locked, root));
    expect(moved).toEqual([file]);
    expect(await rewrittenByContent(locked, root, moved, await watch.close())).toEqual([]);
  });

  it('a file shown to the verifier with other bytes and put back is a change (the swap was looked at)', async () => {
    const { root, locked } = await project();
    const file = 'tests/t.spec.ts';
    let seen!: () => void;
    const looked = new Promise<void>((resolve) => (seen = resolve));
    const watch = watchLocked(locked, root, (f, same) => f === file && !same && seen());
    const before = await statContract(locked, root);
    await lookAfter(file, looked, () => writeFileSync(path.join(root, file), 'test.skip()\n'));
    writeFileSync(path.join(root, file), 'test()\n');
    const moved = touchedBetween(before, await statContract(locked, root));
    expect(await rewrittenByContent(locked, root, moved, await watch.close())).toEqual([file]);
  });

  // Vite's dev server regenerating .svelte-kit/tsconfig.json under load: open with O_TRUNC, then write.
  it('a same-bytes rewrite in place, looked at between its truncation and its write, is no change; left empty it is', async () => {
    const { root, locked } = await project();
    const file = '.svelte-kit/tsconfig.json';
    const bytes = '{ "compilerOptions": {} }\n';
    const looks: boolean[] = [];
    let seen!: () => void;
    let looked = new Promise<void>((resolve) => (seen = resolve));
    const watch = watchLocked(locked, root, (f, same) => {
      if (f !== file) return;
      looks.push(same);
      seen();
    });
    const before = await statContract(locked, root);
    await lookAfter(file, looked, () => truncateSync(path.join(root, file)));
    expect(looks[0]).toBe(false); // the look saw the empty file
    looked = new Promise<void>((resolve) => (seen = resolve));
    await lookAfter(file, looked, () => writeFileSync(path.join(root, file), bytes));
    const moved = touchedBetween(before, await statContract(locked, root));
    expect(moved).toEqual([file]);
    expect(await rewrittenByContent(locked, root, moved, await watch.close())).toEqual([]);

    // Truncated and left empty: the end sees it.
    const again = watchLocked(locked, root);
    const stamps = await statContract(locked, root);
    truncateSync(path.join(root, file));
    const emptied = touchedBetween(stamps, await statContract(locked, root));
    expect(await rewrittenByContent(locked, root, emptied, await again.close())).toEqual([file]);
  });

  it('a chmod is a change; so is any moved stamp when the watch was blind', async () => {
    const { root, locked } = await project();
    const file = 'tests/t.spec.ts';
    const watch = watchLocked(locked, root);
    const before = await statContract(locked, root);
    chmodSync(path.join(root, file), 0o755);
    const moved = touchedBetween(before, await statContract(locked, root));
    const looks = await watch.close();
    expect(await rewrittenByContent(locked, root, moved, looks)).toEqual([file]);
    expect(await rewrittenByContent(locked, root, moved, { ...looks, differed: new Set(), blind: 'tests: gone' })).toEqual([file]);
    expect(await rewrittenByContent(locked, root, moved, null)).toEqual([file]);
  });
});
