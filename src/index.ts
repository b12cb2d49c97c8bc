// The library API: everything the CLI does is callable from code.
export { loadTask, type LoadedTask } from './contract/load-task.js';
export { TaskSchema, type Task, type Criterion } from './contract/task-schema.js';
export { loadConfig, type LoadedConfig } from './config/load-config.js';
export { ConfigSchema, type Config } from './config/config-schema.js';
export { parseTestMd, readVerifies, type TestMd, type TestMdStep } from './verifiers/kane/test-md.js';
export { mapCriteria, judgeCriteria, type CriteriaMap, type CriterionResult } from './contract/criteria-map.js';
export { checkTasks, type CheckReport } from './core/check.js';
export { runTask, type RunTaskOptions, type RunTaskResult } from './core/run-task.js';
export { applyRun, type ApplyRunOptions, type ApplyRunResult } from './core/apply-run.js';
export { verifyOnce } from './core/verify-once.js';
export type { RunEvent, RunReporter } from './core/events.js';
export { listRuns, readRunRecord, RunRecordSchema, type RunRecord } from './evidence/run-record.js';
export { verifyManifest, writeManifest } from './evidence/manifest.js';
export { writeReport } from './core/report.js';
export type { VerifierAdapter, VerificationResult, Finding, Verdict } from './verifiers/types.js';
export type { AgentAdapter } from './agents/types.js';
export * from './errors.js';
export { main } from './cli.js';
