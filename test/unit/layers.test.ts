// The layer rule of eslint.config.js (docs/architecture.md) fails on an import that runs upward, in
// every form, and leaves the imports that run downward alone.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: root });

/** The layer messages ESLint gives `code` as if it were the file `file` (which need not exist). */
async function layerErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${file}` });
  return result!.messages.filter((m) => m.message.includes('layers:')).map((m) => `${m.line}: ${m.ruleId}`);
}

describe('layer boundaries', () => {
  it('refuses core importing a reporter, in each form an import can take', async () => {
    const code = [
      "import { terminalReporter } from '../reporters/terminal.js';",
      "import type { RunReporter } from '../reporters/terminal.js';",
      "export { renderJunit } from '../reporters/junit.js';",
      "export const load = () => import('../reporters/github.js');",
      'export const x = [terminalReporter, {} as RunReporter];',
    ].join('\n');
    expect(await layerErrors('src/core/zz-violation.ts', code)).toEqual([
      '1: no-restricted-imports',
      '2: no-restricted-imports',
      '3: no-restricted-imports',
      '4: no-restricted-syntax',
    ]);
  });

  it('keeps git/, process/ and util/ below everything else, and each other apart', async () => {
    expect(
      await layerErrors('src/git/zz.ts', "import { runTask } from '../core/run/run-task.js';\nexport const x = runTask;"),
    ).toHaveLength(1);
    expect(
      await layerErrors('src/git/zz.ts', "import { runProcess } from '../process/spawn.js';\nexport const x = runProcess;"),
    ).toHaveLength(1);
    expect(await layerErrors('src/process/zz.ts', "import { git } from '../git/git.js';\nexport const x = git;")).toHaveLength(1);
    expect(await layerErrors('src/util/zz.ts', "import { redact } from '../evidence/redact.js';\nexport const x = redact;")).toHaveLength(
      1,
    );
    expect(await layerErrors('src/verifiers/kane/zz.ts', "import { main } from '../../cli.js';\nexport const x = main;")).toHaveLength(1);
  });

  it('refuses a folder cycle from either end: the lower folder may never import the upper one', async () => {
    expect(
      await layerErrors('src/config/zz.ts', "import { loadTask } from '../contract/load-task.js';\nexport const x = loadTask;"),
    ).toEqual([]);
    expect(
      await layerErrors('src/contract/zz.ts', "import { loadConfig } from '../config/load-config.js';\nexport const x = loadConfig;"),
    ).toHaveLength(1);
    expect(
      await layerErrors('src/agents/zz.ts', "import { runKane } from '../verifiers/kane/run-kane.js';\nexport const x = runKane;"),
    ).toHaveLength(1);
  });

  it('lets imports flow downward and within a folder', async () => {
    const code = [
      "import { runTask } from '../core/run/run-task.js';",
      "import { renderJunit } from '../reporters/junit.js';",
      "import { ExitCode } from '../errors.js';",
      "import { parseCount } from './options.js';",
      'export const x = [runTask, renderJunit, ExitCode, parseCount];',
    ].join('\n');
    expect(await layerErrors('src/commands/zz.ts', code)).toEqual([]);
    expect(
      await layerErrors('src/reporters/zz.ts', "import type { RunEvent } from '../core/events.js';\nexport type X = RunEvent;"),
    ).toEqual([]);
    expect(
      await layerErrors(
        'src/verifiers/kane/zz.ts',
        "import { runProcess } from '../../process/spawn.js';\nimport { parseTestMd } from './test-md.js';\nexport const x = [runProcess, parseTestMd];",
      ),
    ).toEqual([]);
  });
});

// File-level import cycles (a type both sides need belongs in a file of its own; see docs/architecture.md).
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

/** The strongly connected groups of more than one file in `graph` (Tarjan), each sorted. */
function importCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) === index.get(file)) {
      const group: string[] = [];
      let member: string;
      do group.push((member = stack.pop()!));
      while (member !== file);
      if (group.length > 1) cycles.push(group.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

function sourceImportGraph(): Map<string, string[]> {
  const files = fg.sync('src/**/*.ts', { cwd: root });
  return new Map(
    files.map((file) => {
      const text = readFileSync(path.join(root, file), 'utf8');
      const targets = [...text.matchAll(IMPORT)].map((m) => path.posix.join(path.posix.dirname(file), m[1]!).replace(/\.js$/, '.ts'));
      return [file, targets.filter((t) => files.includes(t))];
    }),
  );
}

describe('no file-level import cycles', () => {
  it('finds a cycle through a type-only import and a dynamic import', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(importCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    const text = "import type { X } from './b.js';\nconst y = await import('../c/d.js');";
    expect([...text.matchAll(IMPORT)].map((m) => m[1])).toEqual(['./b.js', '../c/d.js']);
  });

  it('src/ has none: no two files import each other, even through others', () => {
    const graph = sourceImportGraph();
    expect(graph.get('src/commands/verify.ts')).toContain('src/commands/verify-all.ts');
    expect(importCycles(graph)).toEqual([]);
  });
});

// core/'s folders (and the files at its top) as rooms: a folder's files may import each other, but no two
// rooms may, even through others (run → workspace → run made a change to either a change to both).
function coreFolderGraph(files: Map<string, string[]>): Map<string, string[]> {
  const room = (file: string) =>
    file
      .replace(/^src\/core\//, '')
      .split('/')[0]!
      .replace(/\.ts$/, '');
  const graph = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    if (!file.startsWith('src/core/')) continue;
    const from = room(file);
    const edges = graph.get(from) ?? new Set<string>();
    for (const target of targets) if (target.startsWith('src/core/') && room(target) !== from) edges.add(room(target));
    graph.set(from, edges);
  }
  return new Map([...graph].map(([from, to]) => [from, [...to].sort()]));
}

describe('no import cycle between core/ folders', () => {
  it('finds a loop of folders through files that are no cycle themselves', () => {
    const files = new Map([
      ['src/core/app/blame.ts', ['src/core/workspace/setup.ts']],
      ['src/core/workspace/setup.ts', ['src/core/app/sandbox.ts']],
      ['src/core/app/sandbox.ts', []],
      ['src/core/events.ts', []],
      ['src/core/run/loop.ts', ['src/core/events.ts', 'src/core/run/phase.ts']],
      ['src/core/run/phase.ts', []],
    ]);
    expect(importCycles(files)).toEqual([]);
    expect(importCycles(coreFolderGraph(files))).toEqual([['app', 'workspace']]);
  });

  it('core/ has none: app, workspace, run, lock, verify, stored-runs… each only import rooms below them', () => {
    const graph = coreFolderGraph(sourceImportGraph());
    expect(graph.get('run')).toContain('workspace');
    expect(importCycles(graph)).toEqual([]);
  });
});
