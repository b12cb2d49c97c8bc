// docs/architecture.md is drawn from the tree: every file or module it names exists, every folder of src/
// (and every room of src/core/) is described, and its table of outside tools names every runtime
// dependency with every file of src/ that imports it. A rename, a new folder or a new importer without the
// doc fails here.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const DOC = 'docs/architecture.md';
const doc = readFileSync(path.join(root, DOC), 'utf8');
const files = fg.sync(['**/*', '.github/**/*'], { cwd: root, ignore: ['node_modules/**', 'dist/**', '.git/**', 'reports/**'] });

/** The file and module names the text gives (`core/run/decide.ts`, `cli-io.ts`, `eslint.config.js`). */
function namedFiles(text: string): string[] {
  const names = text.match(/(?<![\w*/.-])[\w.-]+(?:\/[\w.-]+)*\.(?:ts|js|mjs|json|md)\b/g) ?? [];
  return [...new Set(names)];
}

// The evidence layout's own file names (`run.json`, `attempt.json`): files of a run, not of the tree.
const evidenceNames = [...readFileSync(path.join(root, 'src/evidence/layout.ts'), 'utf8').matchAll(/'([\w.-]+\.\w+)'/g)].map((m) => m[1]!);

/** Names that match no file of the tree (a name counts when some file's path ends with it). */
function missing(names: readonly string[], tree: readonly string[]): string[] {
  return names.filter((name) => !evidenceNames.includes(name) && !tree.some((file) => file === name || file.endsWith(`/${name}`)));
}

interface ToolRow {
  tools: string[];
  where: string;
}

/** The rows of the "One module per outside tool" table. */
function toolRows(text: string): ToolRow[] {
  const section = text.split(/^## /m).find((s) => s.startsWith('One module per outside tool')) ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| tool |'))
    .map((line) => {
      const [tools = '', where = ''] = line.split(' | ').map((c) => c.replace(/^\| /, ''));
      return { tools: tools.split(/,\s*/).map((t) => t.trim()), where };
    });
}

/** Whether the row's "where" names `file` (relative to src/): by its path, a folder holding it or a glob. */
function covers(where: string, file: string): boolean {
  const names = [...where.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.trim());
  return names.some((name) =>
    name.endsWith('/')
      ? file.startsWith(name)
      : name.includes('*')
        ? picomatch.isMatch(path.basename(file), name)
        : file === name || file.endsWith(`/${name}`),
  );
}

/** src/ files (relative to src/) importing `pkg` or a subpath of it, statically or with import(). */
function importersOf(pkg: string): string[] {
  const escaped = pkg.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const pattern = new RegExp(`(from |import\\()'${escaped}(/[^']*)?'`);
  return fg.sync('**/*.ts', { cwd: path.join(root, 'src') }).filter((f) => pattern.test(readFileSync(path.join(root, 'src', f), 'utf8')));
}

describe(DOC, () => {
  it('names only files that exist (a name counts when a file of the tree ends with it)', () => {
    expect(missing(namedFiles(doc), files)).toEqual([]);
  });

  it('catches a renamed or gone file, a folder left undescribed and a tool row short of an importer', () => {
    const text = 'The child environment comes from `agents/agent-env.ts`, phases from `run/attempt.ts` and `*-schema.ts`.';
    expect(missing(namedFiles(text), ['src/core/run/attempt.ts', 'src/process/child-env.ts'])).toEqual(['agents/agent-env.ts']);
    const row = toolRows(
      '## One module per outside tool\n\n| tool | where | why |\n|---|---|---|\n| fast-glob | `core/select-tasks.ts`, `git/` | x |\n',
    )[0]!;
    expect(row.tools).toEqual(['fast-glob']);
    expect(['core/select-tasks.ts', 'git/window-watch.ts', 'attest/commit-tasks.ts'].filter((f) => !covers(row.where, f))).toEqual([
      'attest/commit-tasks.ts',
    ]);
    expect(covers('`*-schema.ts`', 'config/config-schema.ts')).toBe(true);
  });

  it('describes every folder of src/, every room of src/core/ and every file beside them', () => {
    const folders = fg.sync(['src/*', 'src/core/*'], { cwd: root, onlyDirectories: true }).map((d) => d.replace(/^src\/(core\/)?/, ''));
    expect(folders.filter((name) => !doc.includes(`${name}/`))).toEqual([]);
    const loose = fg.sync(['src/*.ts', 'src/core/*.ts'], { cwd: root }).map((f) => path.basename(f));
    expect(loose.filter((name) => !new RegExp(`(?<![\\w-])${name.replace('.', '\\.')}`).test(doc))).toEqual([]);
  });

  it('names every runtime dependency in its table of outside tools, with every file of src/ that imports it', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const rows = toolRows(doc);
    const problems: string[] = [];
    for (const dependency of Object.keys(pkg.dependencies)) {
      const row = rows.find((r) =>
        r.tools.some((t) => t.replaceAll('`', '') === dependency || picomatch.isMatch(dependency, t.replaceAll('`', ''))),
      );
      if (!row) {
        problems.push(`${dependency}: no row`);
        continue;
      }
      for (const file of importersOf(dependency)) if (!covers(row.where, file)) problems.push(`${dependency}: ${file} not named`);
    }
    expect(problems).toEqual([]);
  });

  it("draws the layers in eslint.config.js's order, one floor per level", () => {
    const config = readFileSync(path.join(root, 'eslint.config.js'), 'utf8');
    const levelsText = /const LEVELS = \[([\s\S]*?)\n\];/.exec(config)![1]!;
    const levels = [...levelsText.matchAll(/\[([^\]]*)\]/g)].map((m) => [...m[1]!.matchAll(/'([\w-]+)'/g)].map((n) => `${n[1]}/`));
    const block = /## Layers[\s\S]*?```\n([\s\S]*?)```/.exec(doc)![1]!;
    // A floor is a line that starts two spaces in with folders (`core/  attest/`); the rest is description.
    const floors = block
      .split('\n')
      .map((line) => /^ {2}((?:[\w-]+\/ +)+)/.exec(line)?.[1]?.trim().split(/ +/))
      .filter((floor): floor is string[] => floor !== undefined);
    expect(floors).toEqual(levels);
  });
});
