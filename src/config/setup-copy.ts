// `setup.copy`: the git-ignored files run copies from the main checkout into every worktree.
import path from 'node:path';
import { resolveRepoFile } from '../contract/repo-path.js';
import { ElenchosError } from '../errors.js';

/**
 * One line per `setup.copy` entry that run could not copy: missing, not a regular file (a FIFO would
 * hang the copy), or leading out of the repository. Repo-relative entries, normalized, when all is well.
 */
export async function checkSetupCopy(
  copy: readonly string[],
  root: string,
  configLabel: string,
): Promise<{ files: string[]; problems: string[] }> {
  const files: string[] = [];
  const problems: string[] = [];
  for (const [index, entry] of copy.entries()) {
    try {
      const absolute = await resolveRepoFile(entry, { root, label: `${configLabel}: setup.copy[${index}]` });
      files.push(path.relative(root, absolute).split(path.sep).join('/'));
    } catch (error) {
      if (!(error instanceof ElenchosError)) throw error;
      problems.push(`${error.message}${/does not exist/.test(error.message) ? ' (or remove it from setup.copy)' : ''}`);
    }
  }
  return { files, problems };
}
