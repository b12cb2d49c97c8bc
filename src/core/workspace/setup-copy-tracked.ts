// `setup.copy` brings git-ignored files (`.env`) from the checkout into the worktree. A tracked file named
// there would carry the checkout's uncommitted edit (hidden from status or not) over the committed one: the
// verdict would be about a tree no commit holds, and an attestation would sign it for HEAD.
import { filesInHead, trackedAmong } from '../../git/status.js';

/** One line per `setup.copy` entry that names a file in HEAD or in the index (exit 3 in preflight and check). */
export async function trackedSetupCopies(copy: readonly string[], root: string, configLabel: string): Promise<string[]> {
  if (copy.length === 0) return [];
  const relative = copy.map((entry) => entry.replaceAll('\\', '/').replace(/^(\.\/)+/, ''));
  const [inHead, inIndex] = await Promise.all([filesInHead(root, relative), trackedAmong(root, relative)]);
  return relative.flatMap((file, index) =>
    inHead.has(file) || inIndex.has(file)
      ? [
          `${configLabel}: setup.copy[${index}] names ${file}, which git tracks: the worktree has the committed file, and a copy of the checkout's would carry its uncommitted edits into a verdict about the commit; remove it from setup.copy (it is for git-ignored files such as .env)`,
        ]
      : [],
  );
}
