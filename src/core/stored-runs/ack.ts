// `elenchos ack <task>`: a person looked at a task flagged NEEDS_HUMAN; the record is kept as evidence.
import path from 'node:path';
import { loadConfig } from '../../config/load-config.js';
import { loadTask } from '../../contract/load-task.js';
import { InputError } from '../../errors.js';
import { writeAck, type Ack } from '../../evidence/acks.js';
import { git, repoRootOrCwd } from '../../git/git.js';
import { loadNeedsHuman } from './needs-human.js';

export interface AckOptions {
  cwd: string;
  taskFile: string;
  configFile?: string;
  env: NodeJS.ProcessEnv;
  /** Who looked (default: git's user.name <user.email>, else $USER). */
  by?: string;
  note?: string;
}

export interface AckResult {
  file: string;
  ack: Ack;
}

/** Records that a person looked at the task's flagged runs; refuses a task that is not flagged. */
export async function ackTask(options: AckOptions): Promise<AckResult> {
  const root = await repoRootOrCwd(options.cwd);
  const { config } = await loadConfig({ root, file: options.configFile, env: options.env });
  const { task, label } = await loadTask(path.resolve(options.cwd, options.taskFile), { root });
  const flagged = (await loadNeedsHuman(root, config.needsHuman.afterFailedRuns)).get(task.id);
  if (!flagged)
    throw new InputError(
      `${label}: task ${task.id} does not need a human (no tampering and no run of failures since its last acknowledgement); nothing to acknowledge`,
    );
  const ack: Ack = {
    schemaVersion: 1,
    taskId: task.id,
    taskFile: label,
    by: options.by?.trim() || (await whoAmI(root, options.env)),
    at: new Date().toISOString(),
    note: options.note ?? null,
    upToRunId: flagged.lastRunId,
    reasons: flagged.reasons,
  };
  return { file: path.relative(root, await writeAck(root, ack)), ack };
}

async function whoAmI(root: string, env: NodeJS.ProcessEnv): Promise<string> {
  const read = (key: string) =>
    git(['config', key], { cwd: root }).then(
      (out) => out.trim(),
      () => '',
    );
  const [name, email] = await Promise.all([read('user.name'), read('user.email')]);
  if (name) return email ? `${name} <${email}>` : name;
  return env.USER ?? env.LOGNAME ?? 'unknown';
}
