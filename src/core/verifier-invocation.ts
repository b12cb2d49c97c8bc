// Which command runs a task's verifier: the config's, unless the task picks another verifier type.
import type { Config } from '../config/config-schema.js';
import type { VerifierInvocation } from '../verifiers/types.js';
import type { ResolvedTask } from './resolve-task.js';

/** The verifier's executable for this task: the config's unless the config names another verifier type. */
export function verifierInvocation(config: Config, resolved: ResolvedTask): { command: string | undefined; args: string[] } {
  const sameType = config.verifier.type === undefined || resolved.verifierType === config.verifier.type;
  return sameType ? { command: config.verifier.command, args: config.verifier.args } : { command: undefined, args: [] };
}

/** How this task's verifier is run, as far as what it reads depends on it (its command, arguments and `verifier.env`). */
export function invocationOf(config: Config, resolved: ResolvedTask): VerifierInvocation {
  return { ...verifierInvocation(config, resolved), env: config.verifier.env };
}
