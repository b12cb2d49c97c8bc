// Breadth-first walk over files that name other files (imports, helpers), inside one root.
import path from 'node:path';
import { readTestFileText } from './regular-file.js';

/**
 * Every file reachable from `start` (repo-relative) through `references`, which maps a file's text to
 * the repo-relative files it names (null to skip one). `start` itself is not listed; files that cannot
 * be read are left to the tool that reads them to report; paths leaving `root` are dropped.
 */
export async function followFiles(
  root: string,
  start: string,
  references: (text: string, current: string) => Promise<(string | null)[]> | (string | null)[],
): Promise<string[]> {
  const found: string[] = [];
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length > 0) {
    const current = queue.shift()!;
    const text = await readTestFileText(path.join(root, current), current).catch(() => null);
    if (text === null) continue;
    for (const target of await references(text, current)) {
      if (target === null || target.startsWith('../') || path.posix.isAbsolute(target) || seen.has(target)) continue;
      seen.add(target);
      found.push(target);
      queue.push(target);
    }
  }
  return found;
}
