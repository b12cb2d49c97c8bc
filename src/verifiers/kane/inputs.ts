// What Kane reads besides the test file (locked by hash) and what it writes (excluded from stability).
import path from 'node:path';
import { stat } from 'node:fs/promises';
import { followFiles } from '../../util/follow-files.js';
import { parseTestMd } from './test-md.js';

/** `@import` helpers (transitively, inside the repo), frontmatter context files, `.testmuai/variables/*.json` and `.testmuai/context.md`. */
export async function kaneLockedInputs(root: string, testFileLabel: string): Promise<string[]> {
  // A missing helper is Kane's parse error to report, not ours.
  const found = await followFiles(root, testFileLabel, (text, current) => {
    const parsed = parseTestMd(text);
    const relative = (target: string) => path.posix.normalize(path.posix.join(path.posix.dirname(current), target));
    // Context files named in frontmatter are prompt text for Kane's agent: lock them like the test.
    const contexts = ['local_context', 'global_context'].map(
      (key) => new RegExp(`^${key}\\s*:\\s*["']?([^"'\\n]+?)["']?\\s*$`, 'm').exec(parsed.frontmatter ?? '')?.[1],
    );
    return [
      ...contexts.filter((c): c is string => Boolean(c)).map(relative),
      ...parsed.steps.flatMap((s) => (s.importPath ? [relative(s.importPath)] : [])),
    ];
  });
  // Read from the cwd on every run: .testmuai/variables/*.json and the default local context .testmuai/context.md.
  // Without a .testmuai folder there is nothing to match: fast-glob is loaded only when there is.
  const hasFolder = await stat(path.join(root, '.testmuai')).then(
    (s) => s.isDirectory(),
    () => false,
  );
  const fg = hasFolder ? (await import('fast-glob')).default : null;
  const auto = fg ? await fg(['.testmuai/variables/*.json', '.testmuai/context.md'], { cwd: root, dot: true, onlyFiles: true }) : [];
  return [...found, ...auto.sort().filter((f) => !found.includes(f))];
}

/**
 * Exactly the folders Kane writes, computed from the locked test: `output-<stem>/` beside the test,
 * `helper-output-<helper>-<stem>-<step>/` beside each `@import` helper it reaches (one per call site),
 * and `.testmuai/evidence/` in the cwd. A folder of such a name anywhere else is the agent's.
 */
export async function kaneOutputPaths(root: string, testFileLabel: string): Promise<string[]> {
  const dir = path.posix.dirname(testFileLabel);
  const stem = path.posix.basename(testFileLabel).replace(/_test\.md$/, '');
  const output = dir === '.' ? `output-${stem}/` : `${dir}/output-${stem}/`;
  const helpers = await followFiles(root, testFileLabel, (text, current) => {
    const relative = (target: string) => path.posix.normalize(path.posix.join(path.posix.dirname(current), target));
    return parseTestMd(text).steps.flatMap((s) => (s.importPath ? [relative(s.importPath)] : []));
  });
  const beside = helpers.map((helper) => {
    const helperDir = path.posix.dirname(helper);
    const name = `helper-output-${path.posix.basename(helper).replace(/\.md$/, '')}-${stem}-*`;
    return helperDir === '.' ? name : `${helperDir}/${name}`;
  });
  return [output, ...[...new Set(beside)].sort(), '.testmuai/evidence/'];
}
