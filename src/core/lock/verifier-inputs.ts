// Everything a task's verifier reads besides the task and its test, as one set: what its adapter follows
// (imports, helpers, variables files, a command verifier's own modules) and what `verifier.inputs` lists.
import type { Config } from '../../config/config-schema.js';
import { ELENCHOS_DIR_NAME } from '../../evidence/layout.js';
import type { VerifierInputs } from '../../verifiers/types.js';
import type { ResolvedTask } from '../resolve-task.js';
import { invocationOf } from '../verifier-invocation.js';

/**
 * The verifier's inputs in `root` (sorted, never the task or the test file), and the loads that cannot be
 * followed. With `verifier.inputs` set, the user has named what such loads may reach: they are not refused.
 */
export async function findVerifierInputs(root: string, resolved: ResolvedTask, config: Config): Promise<VerifierInputs> {
  const found = await resolved.verifier.lockedInputs(root, resolved.testFileLabel, invocationOf(config, resolved));
  const listed =
    config.verifier.inputs.length === 0
      ? []
      : await (
          await import('fast-glob')
        ).default([...config.verifier.inputs], {
          cwd: root,
          dot: true,
          onlyFiles: true,
          followSymbolicLinks: false,
          ignore: ['.git/**', `${ELENCHOS_DIR_NAME}/**`],
        });
  const files = new Set([...found.files, ...listed]);
  files.delete(resolved.label);
  files.delete(resolved.testFileLabel);
  return { files: [...files].sort(), unresolved: config.verifier.inputs.length > 0 ? [] : found.unresolved };
}
