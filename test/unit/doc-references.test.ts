// Code comments and docs point at what a reader can open: a section of docs/ (a link), never the project's
// issue numbers ("#25", "issue 12") or a section sign ("SPEC §3", "reference §7.4": documents that are not in the repository). An upstream
// tracker named with its issue ("kane-cli issue #93", "openai/codex issue #17539") stays: it is where the
// behaviour is recorded.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { tempDir, writeFiles } from '../helpers/temp.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Every reference of `text` a reader cannot follow, as `line: text`. */
function badReferences(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    const at = (what: string) => found.push(`${i + 1}: ${what}`);
    for (const m of line.matchAll(/(?:SPEC\s*)?§/g)) at(m[0]);
    for (const m of line.matchAll(/(?<![\w/.#&;:-])#\d+\b/g)) {
      if (!/\b(kane-cli|[\w.-]+\/[\w.-]+) ((issue|PR|pull request) )?$/i.test(line.slice(0, m.index))) at(m[0]);
    }
    for (const m of line.matchAll(/\bissues? \d+\b/gi)) {
      if (!/\b(kane-cli|[\w.-]+\/[\w.-]+) $/i.test(line.slice(0, m.index))) at(m[0]);
    }
  });
  return found;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown text: its headings' (a repeated one numbered) and its `<a id>`s. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      const base = slug(heading[1]!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const a of line.matchAll(/<a id="([^"]+)"/g)) anchors.add(a[1]!);
  }
  return anchors;
}

/** Links of `file` (Markdown, relative to `at`) to a file that does not exist or an anchor it lacks. */
function brokenLinks(at: string, file: string): string[] {
  const text = readFileSync(path.join(at, file), 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '');
  const broken: string[] = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1]!;
    if (/^[a-z]+:/.test(target)) continue;
    const [name = '', anchor] = target.split('#');
    const linked = name === '' ? path.join(at, file) : path.join(at, path.dirname(file), name);
    if (!existsSync(linked)) broken.push(`${file}: ${target} (no such file)`);
    else if (anchor && linked.endsWith('.md') && !anchorsOf(readFileSync(linked, 'utf8')).has(anchor)) broken.push(`${file}: ${target}`);
  }
  return broken;
}

describe('references in code and docs', () => {
  it('catches an issue number and a SPEC section in each spelling, and leaves anchors and upstream issues', () => {
    const text = [
      '// the pool (#13) and (issue #25, item 8); see Issue 12 and SPEC §3 step 4',
      'PKCS#8 PEM, [install](getting-started.md#1-install), &#38;',
      "kane-cli issue #93, kane-cli #138 and openai/codex issue #17539; `'#'`, color:#116329",
      'as the kane-cli reference §7.4 says',
    ].join('\n');
    expect(badReferences(text)).toEqual(['1: SPEC §', '1: #13', '1: #25', '1: Issue 12', '4: §']);
  });

  it('finds none in src/, docs/ or the README', () => {
    const files = fg.sync(['src/**/*.ts', 'docs/**/*.md', 'README.md', 'CONTRIBUTING.md'], { cwd: root });
    const found = files.flatMap((file) => badReferences(readFileSync(path.join(root, file), 'utf8')).map((r) => `${file}:${r}`));
    expect(found).toEqual([]);
  });

  it('links between docs, and docs sections named in src/, land on a file and on one of its headings', () => {
    const files = fg.sync(['docs/**/*.md', 'README.md', 'CONTRIBUTING.md'], { cwd: root });
    expect(files.flatMap((file) => brokenLinks(root, file))).toEqual([]);
    const named = fg.sync('src/**/*.ts', { cwd: root }).flatMap((file) =>
      [...readFileSync(path.join(root, file), 'utf8').matchAll(/\b(docs\/[\w-]+\.md)#([\w-]+)/g)].map((m) => ({
        file,
        doc: m[1]!,
        anchor: m[2]!,
      })),
    );
    const missing = named.filter(
      ({ doc, anchor }) => !existsSync(path.join(root, doc)) || !anchorsOf(readFileSync(path.join(root, doc), 'utf8')).has(anchor),
    );
    expect(missing.map(({ file, doc, anchor }) => `${file}: ${doc}#${anchor}`)).toEqual([]);
    expect(named.length).toBeGreaterThan(0);
  });

  it('a link to a renamed heading or a missing file is broken; a heading, a repeated one and an <a id> are not', () => {
    const at = tempDir();
    writeFiles(at, {
      'docs/a.md': '# A\n\n## The loop\n\n## Notes\n\n## Notes\n\n<a id="app-writes"></a>\n\n## app.writes\n',
      'docs/b.md': [
        '[ok](a.md#the-loop) [ok](a.md#notes-1) [ok](a.md#app-writes) [ok](a.md#appwrites) [ok](#here)',
        '[gone](a.md#the-run-loop) [none](c.md) `[code](x.md)` [web](https://example.com/#x)',
        '## Here',
        '',
      ].join('\n'),
    });
    expect(brokenLinks(at, 'docs/b.md')).toEqual(['docs/b.md: a.md#the-run-loop', 'docs/b.md: c.md (no such file)']);
  });
});
