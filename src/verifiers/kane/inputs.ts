// What Kane reads besides the test file (locked by hash) and what it writes (excluded from stability).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { parseTestMd } from './test-md.js';

/** `@import` helpers (followed transitively, staying inside the repo) and `.testmuai/variables/*.json`. */
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
    for (const step of parseTestMd(text).steps) {
      if (!step.importPath) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(current), step.importPath));
      if (target.startsWith('../') || found.has(target) || target === testFileLabel) continue;
      found.add(target);
      queue.push(target);
    }
  }
  const variables = await fg('.testmuai/variables/*.json', { cwd: root, dot: true, onlyFiles: true });
  return [...found, ...variables.sort()];
}

/** Kane writes `output-<stem>/` beside the test and `.testmuai/evidence/` in the cwd. */
export function kaneOutputPaths(testFileLabel: string): string[] {
  const dir = path.posix.dirname(testFileLabel);
  const stem = path.posix.basename(testFileLabel).replace(/_test\.md$/, '');
  const output = dir === '.' ? `output-${stem}/` : `${dir}/output-${stem}/`;
  return [output, '.testmuai/evidence/'];
}
