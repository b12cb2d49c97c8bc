// Comparing two workspace snapshots without git: when they are the same tree, and each difference in words.
import { describe, expect, it } from 'vitest';
import { diffSnapshots, sameSnapshot, type WorkspaceSnapshot } from '../../src/git/snapshot.js';

const HEAD = 'a'.repeat(40);
const snap = (
  entries: Record<string, string>,
  codes: Record<string, string> = {},
  more: Partial<WorkspaceSnapshot> = {},
): WorkspaceSnapshot => ({
  head: HEAD,
  contentHash: JSON.stringify(entries),
  changed: Object.keys(entries).sort(),
  entries,
  codes,
  ...more,
});

describe('sameSnapshot', () => {
  it('needs the same HEAD and the same content hash', () => {
    const a = snap({ x: 'file:644:1' });
    expect(sameSnapshot(a, snap({ x: 'file:644:1' }))).toBe(true);
    expect(sameSnapshot(a, { ...a, head: 'b'.repeat(40) })).toBe(false);
    expect(sameSnapshot(a, { ...a, contentHash: 'other' })).toBe(false);
  });
});

describe('diffSnapshots', () => {
  it.each<[string, string | undefined, string | undefined, string | undefined, string | undefined, string | null]>([
    ['unchanged', 'file:644:1', 'file:644:1', ' M', ' M', null],
    ['an untracked file removed', 'file:644:1', undefined, '??', undefined, 'p: deleted'],
    ['a tracked file put back', 'file:644:1', undefined, ' M', undefined, 'p: restored to its committed content'],
    ['a tracked file deleted', 'file:644:1', 'deleted', ' M', ' D', 'p: deleted'],
    ['a new untracked file', undefined, 'file:644:1', undefined, '??', 'p: created'],
    ['a clean tracked file edited', undefined, 'file:644:1', undefined, ' M', 'p: modified'],
    ['a deleted file back with other content', 'deleted', 'file:644:2', ' D', ' M', 'p: created'],
    ['a new symlink', undefined, 'link:target/x', undefined, '??', 'p: now a symlink to target/x'],
    ['a deleted file back as a symlink', 'deleted', 'link:y', ' D', 'T ', 'p: now a symlink to y'],
    ['a symlink retargeted', 'link:a', 'link:b', '??', '??', 'p: symlink retargeted from a to b'],
    ['a mode change', 'file:644:1', 'file:755:1', ' M', ' M', 'p: mode changed from 644 to 755'],
    ['a mode and content change', 'file:644:1', 'file:755:2', ' M', ' M', 'p: content changed'],
    ['a file that became a symlink', 'file:644:1', 'link:z', ' M', ' T', 'p: type changed (file → link)'],
    ['a symlink that became a file', 'link:z', 'file:644:1', ' T', ' M', 'p: type changed (link → file)'],
    ['an edit', 'file:644:1', 'file:644:2', ' M', ' M', 'p: content changed'],
    // Whatever a link's target text looks like, a link that became a file (or back) is a change of type.
    ['a link whose target reads like a mode, become a file', 'link:600:1', 'file:644:1', ' M', ' T', 'p: type changed (link → file)'],
    ['a file become such a link', 'file:644:1', 'link:600:1', ' M', ' T', 'p: type changed (file → link)'],
  ])('%s', (_name, before, after, codeBefore, codeAfter, line) => {
    const a = snap(before === undefined ? {} : { p: before }, codeBefore === undefined ? {} : { p: codeBefore });
    const b = snap(after === undefined ? {} : { p: after }, codeAfter === undefined ? {} : { p: codeAfter });
    expect(diffSnapshots(a, b)).toEqual(line === null ? [] : [line]);
  });

  it('puts a moved HEAD first (12 characters of each), then every path in order', () => {
    const a = snap({ b: 'file:644:1', a: 'file:644:1' }, { a: '??', b: '??' });
    const b = snap({ c: 'file:644:1', a: 'file:644:2' }, { a: '??', c: '??' }, { head: `${'b'.repeat(12)}cccc` });
    expect(diffSnapshots(a, b)).toEqual([
      `HEAD moved from ${'a'.repeat(12)} to ${'b'.repeat(12)}`,
      'a: content changed',
      'b: deleted',
      'c: created',
    ]);
  });

  it('says the content changed when only the hash tells (snapshots without entries), and nothing when all agrees', () => {
    const bare = (contentHash: string): WorkspaceSnapshot => ({ head: HEAD, contentHash, changed: [] }) as unknown as WorkspaceSnapshot;
    expect(diffSnapshots(bare('1'), bare('2'))).toEqual(['working tree content changed']);
    expect(diffSnapshots(bare('1'), bare('1'))).toEqual([]);
    // Entries on one side only still name the path; codes may be missing on either side.
    const listed = { ...bare('2'), entries: { p: 'file:644:1' } };
    expect(diffSnapshots(bare('1'), listed)).toEqual(['p: modified']);
    expect(diffSnapshots(listed, bare('1'))).toEqual(['p: restored to its committed content']);
    expect(diffSnapshots(snap({ p: 'file:644:1' }), { ...snap({ p: 'file:644:1' }), contentHash: 'x' })).toEqual([
      'working tree content changed',
    ]);
  });
});
