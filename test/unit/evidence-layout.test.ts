// Every `.elenchos/` and evidence path comes from src/evidence/layout.ts: a file or folder name of the
// layout spelled out anywhere else in src/ fails here (the names git/ needs too live in git/layout-names.ts,
// below evidence/).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  applyDir,
  attemptDir,
  attemptName,
  attemptPaths,
  authorDir,
  baseProbeWorkspaceDir,
  commandFilesDir,
  EVIDENCE_FILES,
  playwrightPaths,
  restoredDir,
  runDir,
  runsDir,
  setupCacheEntryFiles,
  sweepDir,
  workspaceDir,
  workspaceOwner,
  workspacesDir,
} from '../../src/evidence/layout.js';
import { writeJsonAtomic } from '../../src/evidence/write-json.js';
import { tempDir } from '../helpers/temp.js';

const root = new URL('../../', import.meta.url).pathname;
const OWNERS = new Set(['src/evidence/layout.ts', 'src/git/layout-names.ts']);
// Literals that look like the layout and are not: each with its reason.
const NOT_THE_LAYOUT = new Set([
  'src/agents/sandbox.ts: prompt.md', // where a sandboxed agent reads its prompt, inside the sandbox
  'src/verifiers/playwright/transform-cache.ts: cache', // Playwright's own transform cache in a leased folder
]);
// Names whose only meaning in src/ is a place in the layout.
const FILE_NAMES = [
  'run.json',
  'attempt.json',
  'manifest.json',
  'processes.ndjson',
  'prompt.md',
  'agent.log',
  'app.log',
  'setup.log',
  'events.ndjson',
  'stderr.log',
  'base.txt',
  'diff.patch',
  'untracked.tar.gz',
  'last-used',
  'playwright-report',
  'base-probe',
  'verifier-only',
  'report.json',
  'config-notes.json',
  'progress-reporter.mjs',
  'stdout.log',
  'trace-last-frame.jpeg',
];
// Folder names that are also ordinary words: a literal counts when it is joined onto a path.
const FOLDER_NAMES = [
  'runs',
  'attempts',
  'workspaces',
  'pool',
  'cache',
  'acks',
  'reports',
  'listings',
  'workspace',
  'verifier',
  'kane',
  'doctor',
  'apply',
  'restored',
  'author',
  'window',
  'sweep',
  'attachments',
  'files',
];

/**
 * Every literal of the layout in `source`: a string (or template part) with no spaces that is one of the
 * names or ends in `/<name>`, that holds `.elenchos` as a path, or a folder name passed to path.join or
 * path.resolve. Comments and messages for people (strings with spaces) are not paths.
 */
function layoutLiterals(source: string): string[] {
  const found = new Set<string>();
  const file = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)) {
      const text = node.text;
      if (!/\s/.test(text)) {
        for (const name of FILE_NAMES) if (text === name || text.endsWith(`/${name}`)) found.add(name);
        if (/(^|\/)\.elenchos(\/|$)/.test(text)) found.add('.elenchos');
        const call = node.parent;
        if (FOLDER_NAMES.includes(text) && ts.isCallExpression(call) && /^path\.(join|resolve)$/.test(call.expression.getText(file)))
          found.add(text);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return [...found];
}

describe('the evidence layout', () => {
  it('finds a literal of the layout in each form (the check below can fail)', () => {
    expect(layoutLiterals("const f = path.join(dir, 'agent.log');")).toEqual(['agent.log']);
    expect(layoutLiterals('const f = `${dir}/attempt.json`;')).toEqual(['attempt.json']);
    expect(layoutLiterals("const d = path.join(root, '.elenchos', 'x');")).toEqual(['.elenchos']);
    expect(layoutLiterals("const d = '.elenchos/doctor';")).toEqual(['.elenchos']);
    expect(layoutLiterals("const d = path.join(runDir, 'attempts', '01');")).toEqual(['attempts']);
    expect(layoutLiterals("const kind = 'verifier'; // a phase name, not .elenchos/runs")).toEqual([]);
    expect(layoutLiterals("throw new Error('see .elenchos/runs for the evidence');")).toEqual([]);
  });

  it('is spelled out nowhere in src/ but layout.ts', () => {
    const offenders: string[] = [];
    for (const file of fg.sync('src/**/*.ts', { cwd: root })) {
      if (OWNERS.has(file)) continue;
      for (const name of layoutLiterals(readFileSync(`${root}${file}`, 'utf8')))
        if (!NOT_THE_LAYOUT.has(`${file}: ${name}`)) offenders.push(`${file}: ${name}`);
    }
    expect(offenders).toEqual([]);
  });

  it('names the folders of apply, restore and author, of a sweep, a command verifier and Playwright', () => {
    expect(applyDir('/r', 'id')).toBe('/r/.elenchos/apply/id');
    expect(restoredDir('/r', 'id', 3)).toBe('/r/.elenchos/restored/id-03');
    expect(authorDir('/r', 'draft')).toBe('/r/.elenchos/author/draft');
    expect(baseProbeWorkspaceDir('/r', 'id')).toBe('/r/.elenchos/workspaces/id-base');
    expect([workspaceOwner('id-base'), workspaceOwner('id'), workspaceOwner('id-based')]).toEqual(['id', 'id', 'id-based']);
    expect(sweepDir('/a/verifier')).toBe('/a/verifier/sweep');
    expect(commandFilesDir('/a/verifier')).toBe('/a/verifier/files');
    expect(setupCacheEntryFiles('/r/.elenchos/cache/k').files).toBe('/r/.elenchos/cache/k/files');
    expect(playwrightPaths('/a/verifier')).toEqual({
      report: '/a/verifier/report.json',
      configNotes: '/a/verifier/config-notes.json',
      progressReporter: '/a/verifier/progress-reporter.mjs',
      stdout: '/a/verifier/stdout.log',
      outputDir: '/a/verifier/playwright',
      attachmentsDir: '/a/verifier/playwright/attachments',
    });
  });

  it('names every file of an attempt from EVIDENCE_FILES', () => {
    const paths = attemptPaths('/r/attempts/01');
    expect(paths).toMatchObject({
      attemptJson: `/r/attempts/01/${EVIDENCE_FILES.attemptJson}`,
      prompt: '/r/attempts/01/prompt.md',
      verifierEvents: '/r/attempts/01/verifier/events.ndjson',
      baseTxt: '/r/attempts/01/workspace/base.txt',
      playwrightReport: '/r/attempts/01/verifier/playwright-report/index.html',
    });
  });
});

describe('evidence layout', () => {
  it('names every folder and file', () => {
    expect(runsDir('/r')).toBe(path.join('/r', '.elenchos', 'runs'));
    expect(runDir('/r', 'id')).toBe(path.join('/r', '.elenchos', 'runs', 'id'));
    expect(workspacesDir('/r')).toBe(path.join('/r', '.elenchos', 'workspaces'));
    expect(workspaceDir('/r', 'id')).toBe(path.join('/r', '.elenchos', 'workspaces', 'id'));
    expect(attemptDir('/run', 1)).toBe(path.join('/run', 'attempts', '01'));
    expect(attemptDir('/run', 12)).toBe(path.join('/run', 'attempts', '12'));
    expect(() => attemptName(0)).toThrow(RangeError);
    const p = attemptPaths('/a');
    expect(Object.fromEntries(Object.entries(p).map(([k, v]) => [k, path.relative('/a', v).split(path.sep).join('/')]))).toEqual({
      dir: '',
      attemptJson: 'attempt.json',
      // prompt, playwrightReport and baseProbeDir joined the attempt folder after this case was written
      prompt: 'prompt.md',
      agentLog: 'agent.log',
      appLog: 'app.log',
      setupLog: 'setup.log',
      verifierDir: 'verifier',
      verifierEvents: 'verifier/events.ndjson',
      verifierStderr: 'verifier/stderr.log',
      kaneDir: 'verifier/kane',
      playwrightReport: 'verifier/playwright-report/index.html',
      baseProbeDir: 'base-probe',
      workspaceDir: 'workspace',
      diffPatch: 'workspace/diff.patch',
      untrackedTar: 'workspace/untracked.tar.gz',
      baseTxt: 'workspace/base.txt',
    });
  });
});

describe('writeJsonAtomic', () => {
  it('writes pretty JSON with a trailing newline, replaces the old file and leaves no temp file', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'sub', 'run.json');
    await writeJsonAtomic(file, { a: 1 });
    await writeJsonAtomic(file, { a: 2, b: [1] });
    expect(readFileSync(file, 'utf8')).toBe('{\n  "a": 2,\n  "b": [\n    1\n  ]\n}\n');
    expect(readdirSync(path.dirname(file))).toEqual(['run.json']);
  });

  it('keeps the previous content when the new value cannot be serialised', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'run.json');
    writeFileSync(file, '{"ok":true}\n');
    await expect(writeJsonAtomic(file, { n: 1n })).rejects.toThrow();
    expect(readFileSync(file, 'utf8')).toBe('{"ok":true}\n');
    expect(readdirSync(dir)).toEqual(['run.json']);
  });
});
