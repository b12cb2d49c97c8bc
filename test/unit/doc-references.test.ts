// Code comments and docs point at what a reader can open: a section of docs/ (a link), never the project's
// issue numbers ("#25", "issue 12") or "SPEC §" (documents that are not in the repository). An upstream
// tracker named with its issue ("kane-cli issue #93", "openai/codex issue #17539") stays: it is where the
// behaviour is recorded.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Every reference of `text` a reader cannot follow, as `line: text`. */
function badReferences(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    const at = (what: string) => found.push(`${i + 1}: ${what}`);
    for (const m of line.matchAll(/SPEC\s*§/g)) at(m[0]);
    for (const m of line.matchAll(/(?<![\w/.#&;:-])#\d+\b/g)) {
      if (!/\b(kane-cli|[\w.-]+\/[\w.-]+) ((issue|PR|pull request) )?$/i.test(line.slice(0, m.index))) at(m[0]);
    }
    for (const m of line.matchAll(/\bissues? \d+\b/gi)) {
      if (!/\b(kane-cli|[\w.-]+\/[\w.-]+) $/i.test(line.slice(0, m.index))) at(m[0]);
    }
  });
  return found;
}

describe('references in code and docs', () => {
  it('catches an issue number and a SPEC section in each spelling, and leaves anchors and upstream issues', () => {
    const text = [
      '// the pool (#13) and (issue #25, item 8); see Issue 12 and SPEC §3 step 4',
      'PKCS#8 PEM, [install](getting-started.md#1-install), &#38;',
      "kane-cli issue #93, kane-cli #138 and openai/codex issue #17539; `'#'`, color:#116329",
    ].join('\n');
    expect(badReferences(text)).toEqual(['1: SPEC §', '1: #13', '1: #25', '1: Issue 12']);
  });

  it('finds none in src/, docs/ or the README', () => {
    const files = fg.sync(['src/**/*.ts', 'docs/**/*.md', 'README.md', 'CONTRIBUTING.md'], { cwd: root });
    const found = files.flatMap((file) => badReferences(readFileSync(path.join(root, file), 'utf8')).map((r) => `${file}:${r}`));
    expect(found).toEqual([]);
  });
});
