// Every `.elenchos/` and evidence path comes from src/evidence/layout.ts: a file or folder name of the
// layout spelled out anywhere else in src/ fails here (the names git/ needs too live in git/layout-names.ts,
// below evidence/).
import { readFileSync } from 'node:fs';
import fg from 'fast-glob';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { attemptPaths, EVIDENCE_FILES } from '../../src/evidence/layout.js';

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
