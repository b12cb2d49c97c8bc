// Doctor's pure rules: which dependency specs leave the repository, and the app.writes entry for a write.
import { describe, expect, it } from 'vitest';
import { appWriteFindings, suggestedGlob } from '../../src/core/doctor/app-writes-findings.js';
import { outsidePath } from '../../src/core/doctor/local-dependencies.js';
import { globMatcher } from '../../src/util/glob-match.js';

describe('outsidePath', () => {
  const root = '/home/me/app';
  it('a relative local spec that climbs out of the repository, however it is spelled', () => {
    for (const spec of ['file:../x.tgz', 'link:../x', 'portal:../x', '../x', 'file:./../x', 'file:vendor/../../x', 'file:..']) {
      expect(outsidePath(root, spec), spec).not.toBeNull();
    }
    expect(outsidePath(root, 'file:../elenchos/elenchos-0.1.0.tgz')).toBe('/home/me/elenchos/elenchos-0.1.0.tgz');
  });

  it('inside the repository, absolute, home-relative, a file URL, a registry range or a git URL: not outside', () => {
    for (const spec of [
      'file:./vendor/x.tgz',
      'file:vendor/x.tgz',
      './vendor/x',
      'file:/opt/x.tgz',
      '/opt/x.tgz',
      'file:~/x.tgz',
      'file:///opt/x.tgz',
      '^1.2.3',
      'latest',
      'git+https://h/o/r.git',
      'github:o/r',
      'npm:other@1',
      'file:..x',
    ]) {
      expect(outsidePath(root, spec), spec).toBeNull();
    }
  });
});

describe('appWriteFindings', () => {
  it('the entry for a path matches that path, glob characters and all', () => {
    for (const path of ['data/db.json', 'data/[1].json', 'out/a*b.txt', 'x/{a,b}.json', 'notes (1).md']) {
      const glob = suggestedGlob({ path, kind: 'file' });
      expect(globMatcher([glob])(path), `${path} → ${glob}`).toBe(true);
      expect(globMatcher([glob])('data/other.json'), glob).toBe(false);
    }
    expect(suggestedGlob({ path: 'log', kind: 'folder' })).toBe('log/**');
    expect(globMatcher(['log/**'])('log/2026/app.log')).toBe(true);
  });

  it('one warning per path (what lies in a new folder under that folder), the whole key on the last', () => {
    const checks = appWriteFindings(
      [
        { path: 'data/db.json', kind: 'file' },
        { path: 'log/app', kind: 'folder', holds: ['log/app/a.log', 'log/app/b.log', 'log/app/c.log', 'log/app/d.log'] },
        { path: 'log/app/a.log', kind: 'file' },
        { path: 'cache.tmp', kind: 'gone' },
      ],
      ['db.sqlite3'],
      'elenchos.config.json',
    );
    expect(checks.map((c) => [c.status, c.message.split(' while ')[0]])).toEqual([
      ['warn', 'the app wrote data/db.json'],
      ['warn', 'the app created the folder log/app/ (holding log/app/a.log, log/app/b.log, log/app/c.log and 1 more)'],
      ['warn', 'the app wrote cache.tmp'],
    ]);
    expect(checks[2]!.fix).toContain('and removed it again');
    expect(checks.map((c) => c.details)).toEqual([
      [],
      [],
      ['in elenchos.config.json, under "app": "writes": ["db.sqlite3","data/db.json","log/app/**","cache.tmp"]'],
    ]);
    expect(appWriteFindings([], [], 'elenchos.config.json')).toEqual([expect.objectContaining({ status: 'ok' })]);
  });

  it('a locked file the app rewrites (Next.js and tsconfig.json): commit what it writes, never an app.writes entry preflight refuses', () => {
    const locked = ['tasks/add.json', 'tests/add.spec.ts', 'tsconfig.json'];
    const checks = appWriteFindings(
      [
        { path: 'tsconfig.json', kind: 'file' },
        { path: 'data/db.json', kind: 'file' },
      ],
      [],
      'elenchos.config.json',
      locked,
    );
    expect(checks.map((c) => [c.status, c.message.split(' while ')[0]])).toEqual([
      ['warn', 'the app rewrote tsconfig.json'],
      ['warn', 'the app wrote data/db.json'],
    ]);
    expect(checks[0]!.message).toContain('each run would end CONTRACT_CHANGED');
    expect(checks[0]!.fix).toContain('commit tsconfig.json as it leaves it');
    expect(checks[0]!.fix).toContain('app.writes cannot cover a file the run locks');
    expect(checks[0]!.fix).not.toMatch(/add "tsconfig\.json"/);
    // The key to paste holds only what may be declared.
    expect(checks[1]!.details).toEqual(['in elenchos.config.json, under "app": "writes": ["data/db.json"]']);
    // Only a locked file written: no app.writes line at all.
    const only = appWriteFindings([{ path: 'tsconfig.json', kind: 'file' }], [], 'elenchos.config.json', locked);
    expect(only).toHaveLength(1);
    expect(only[0]!.details).toEqual([]);
    expect(only[0]!.fix).not.toContain('add "');
  });

  it('past twenty paths, one line counts the rest and the key still lists them all', () => {
    const many = Array.from({ length: 25 }, (_, i) => ({ path: `f${i}.txt`, kind: 'file' as const }));
    const checks = appWriteFindings(many, [], 'c.json');
    expect(checks).toHaveLength(21);
    expect(checks[20]!.message).toBe('and 5 more path(s) the app wrote');
    expect(checks[20]!.details[0]).toContain('"f24.txt"');
  });
});
