import { budgetOverrides } from './options.js';

// The flags of `elenchos run`, shared by the plain run and the best-of run (commands/run-best-of.ts).
export interface RunCommandOptions {
  config?: string;
  json?: boolean;
  keep?: boolean;
  fresh?: boolean;
  verbose?: boolean;
  maxRepairs?: number;
  apply?: boolean;
  commit?: boolean;
  branch?: string | true;
  maxCostUsd?: number;
  maxKaneCredits?: number;
  maxMinutes?: number;
  agents?: string[];
  bestOf?: number;
  parallel?: number;
  stopAtFirst?: boolean;
}

/** The flags that become config overrides, the same for a plain run and each candidate of a best-of run. */
export function runOverrides(options: RunCommandOptions): Record<string, unknown> {
  return {
    retainWorkspace: options.keep ? true : undefined,
    'worktreePool.enabled': options.fresh ? false : undefined,
    maxRepairAttempts: options.maxRepairs,
    ...budgetOverrides(options),
  };
}
