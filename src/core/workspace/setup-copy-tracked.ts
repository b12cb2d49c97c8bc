// `setup.copy` brings git-ignored files (`.env`) from the checkout into the worktree. A tracked file named
// there would carry the checkout's uncommitted edit (hidden from status or not) over the committed one: the
// verdict would be about a tree no commit holds, and an attestation would sign it for HEAD.
import { gitTracking, type Tracking } from '../../git/status.js';

/** The `setup.copy` entries as repository paths (what git is asked about). */
export function setupCopyPaths(copy: readonly string[]): string[] {
  return copy.map((entry) => entry.replaceAll('\\', '/').replace(/^(\.\/)+/, ''));
}

/** One line per `setup.copy` entry that names a file in HEAD or in the index (exit 3 in preflight and check). */
export async function trackedSetupCopies(copy: readonly string[], root: string, configLabel: string): Promise<string[]> {
  if (copy.length === 0) return [];
  return setupCopiesTracked(copy, configLabel, await gitTracking(root, setupCopyPaths(copy)));
}

/** trackedSetupCopies, with what git tracks already asked (preflight asks once for every path the run needs). */
export function setupCopiesTracked(copy: readonly string[], configLabel: string, tracked: Tracking): string[] {
  return setupCopyPaths(copy).flatMap((file, index) =>
    tracked.inHead.has(file) || tracked.inIndex.has(file)
      ? [
          `${configLabel}: setup.copy[${index}] names ${file}, which git tracks: the worktree has the committed file, and a copy of the checkout's would carry its uncommitted edits into a verdict about the commit; remove it from setup.copy (it is for git-ignored files such as .env)`,
        ]
      : [],
  );
}
