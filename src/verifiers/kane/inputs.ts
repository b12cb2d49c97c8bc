// What Kane reads besides the test file (locked by hash) and what it writes (excluded from stability).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { parseTestMd } from './test-md.js';

/** `@import` helpers (transitively, inside the repo), frontmatter context files, `.testmuai/variables/*.json` and `.testmuai/context.md`. */
export async function kaneLockedInputs(root: string, testFileLabel: string): Promise<string[]> {
  const found = new Set<string>();
  const queue = [testFileLabel];
  while (queue.length > 0) {
    const current = queue.shift()!;
    let text: string;
    try {
      text = await readFile(path.join(root, current), 'utf8');
    } catch {
      continue; // a missing helper is Kane's parse error to report, not ours
    }
    const parsed = parseTestMd(text);
    // Context files named in frontmatter are prompt text for Kane's agent: lock them like the test.
    for (const key of ['local_context', 'global_context']) {
      const named = new RegExp(`^${key}\\s*:\\s*["']?([^"'\\n]+?)["']?\\s*$`, 'm').exec(parsed.frontmatter ?? '')?.[1];
      if (!named) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(current), named));
      if (!target.startsWith('../') && !path.posix.isAbsolute(target)) found.add(target);
    }
    for (const step of parsed.steps) {
      if (!step.importPath) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(current), step.importPath));
      if (target.startsWith('../') || found.has(target) || target === testFileLabel) continue;
      found.add(target);
      queue.push(target);
    }
  }
  // Read from the cwd on every run: variables files and the default local context (kane-cli.md §1.1, §8.3).
  const auto = await fg(['.testmuai/variables/*.json', '.testmuai/context.md'], { cwd: root, dot: true, onlyFiles: true });
  return [...found, ...auto.sort()];
}

/** Kane writes `output-<stem>/` beside the test and `.testmuai/evidence/` in the cwd. */
export function kaneOutputPaths(testFileLabel: string): string[] {
  const dir = path.posix.dirname(testFileLabel);
  const stem = path.posix.basename(testFileLabel).replace(/_test\.md$/, '');
  const output = dir === '.' ? `output-${stem}/` : `${dir}/output-${stem}/`;
  return [output, '.testmuai/evidence/'];
}
