// One attempt's phases run in this process, with injected doubles: a real repository, worktree and
// baselines (the guards judge the real disk), a verifier and an agent that are functions of the test.
// No CLI process, no app: what a guard finds is read from the attempt's record.
import { mkdirSync } from 'node:fs';
import { afterEach } from 'vitest';
import path from 'node:path';
import type { AgentAdapter, AgentContext, AgentOutcome } from '../../src/agents/types.js';
import { judgeCriteria, type CriterionResult } from '../../src/contract/criteria-map.js';
import type { VerifierDetails } from '../../src/evidence/attempt-record.js';
import { attemptDir, childLogPath } from '../../src/evidence/layout.js';
import { Redactor } from '../../src/evidence/redact.js';
import type { RunEvent } from '../../src/core/events.js';
import { runAttempt, type AttemptResult } from '../../src/core/run/attempt.js';
import { takeBaselines } from '../../src/core/run/baselines.js';
import { preflight } from '../../src/core/run/preflight.js';
import type { AttemptContext } from '../../src/core/run/run-context.js';
import { RunGuard } from '../../src/core/run/run-guard.js';
import { buildRunContext } from '../../src/core/run/shared-context.js';
import { Teardowns } from '../../src/core/run/teardown.js';
import { prepareWorktree } from '../../src/core/run/worktree.js';
import type { VerificationResult, VerifyContext } from '../../src/verifiers/types.js';
import { makeProject } from './project.js';

/** What a verifier double does while it "looks" (the attack), then the verdict it gives. */
export type VerifierDouble = (context: VerifyContext) => Promise<Partial<VerificationResult> | void>;
/** What an agent double does in its turn (the attack), then how its turn ended. */
export type AgentDouble = (context: AgentContext) => Promise<Partial<AgentOutcome> | void>;

export interface PhaseRun {
  root: string;
  workspace: string;
  ctx: AttemptContext;
  events: RunEvent[];
  /** Runs attempt 1 (kind `agent` when an agent double was given, else `verify`) through every phase. */
  attempt(): Promise<AttemptResult>;
  /** The worktree removed, the guard released. */
  close(): Promise<void>;
}

/** A PASS with every criterion passed: what an honest verifier that saw nothing wrong returns. */
function passed(criteria: CriterionResult[]): VerificationResult {
  return {
    status: 'PASS',
    summary: 'the double saw every criterion pass',
    criteria: criteria.map((c) => ({ ...c, status: 'PASS', note: null })),
    findings: [],
    exitCode: 0,
    timedOut: false,
    durationMs: 1,
    details: { verifier: 'command', command: 'double', args: [], done: 'passed', steps: [] } as unknown as VerifierDetails,
  };
}

/** A project, its preflight and run context as `elenchos run`/`verify` make them, the worktree and baselines taken. */
export async function phaseRun(doubles: { verifier: VerifierDouble; agent?: AgentDouble }): Promise<PhaseRun> {
  const { root, env } = makeProject();
  const mode = doubles.agent ? 'run' : 'verify';
  const pre = await preflight({ cwd: root, taskFile: 'tasks/add-task.json', env, needsAgent: false, requireClean: true });
  const runId = `phase-${path.basename(root)}`;
  const runDir = path.join(root, '.elenchos', 'runs', runId);
  mkdirSync(runDir, { recursive: true });
  const guard = new RunGuard(new AbortController().signal, root, childLogPath(runDir));
  const events: RunEvent[] = [];
  const place = { runId, dir: runDir, workspace: path.join(root, '.elenchos', 'workspaces', runId), mode, inPlace: false, guard } as const;
  const built = await buildRunContext({ env }, pre, place, {
    reporter: { onEvent: (event) => void events.push(event) },
    redactor: new Redactor({ values: [] }),
  });
  const real = built.resolved.verifier;
  const criteria = judgeCriteria(built.resolved.task.acceptanceCriteria, built.resolved.map, new Map());
  const verifier = {
    ...real,
    start: undefined,
    verify: async (context: VerifyContext) => ({ ...passed(criteria), ...(await doubles.verifier(context)) }),
  };
  const agent: AgentAdapter = {
    type: 'command',
    command: () => ({ command: 'agent-double', args: [] }),
    dispatch: async (context) => {
      const started = Date.now();
      const outcome = await doubles.agent?.(context);
      return { ok: true, exitCode: 0, durationMs: Date.now() - started, costUsd: 0, turns: 1, summary: 'done', ...outcome } as AgentOutcome;
    },
  };
  // No app: the phases skip it (app.command unset), and the verifier double looks at the disk instead.
  const config = { ...built.config, app: { ...built.config.app, command: '' } };
  const ctx0 = { ...built, config, agent, resolved: { ...built.resolved, verifier } };
  const teardowns = new Teardowns();
  await prepareWorktree(ctx0, teardowns);
  const ctx: AttemptContext = { ...ctx0, baselines: await takeBaselines(ctx0, false) };
  const run: PhaseRun = {
    root,
    workspace: ctx.workspace,
    ctx,
    events,
    attempt: async () => {
      const dir = attemptDir(runDir, 1);
      mkdirSync(dir, { recursive: true });
      const kind = doubles.agent ? 'agent' : 'verify';
      return runAttempt(ctx, { number: 1, kind, previous: null, previousSnapshot: null, dir, maxAttempts: 1 });
    },
    close: async () => {
      open.delete(run);
      await teardowns.runAll();
      guard.dispose();
    },
  };
  open.add(run);
  return run;
}

/** The phase runs not closed yet: closeAfterEach closes them when their case ends, passed or failed. */
const open = new Set<PhaseRun>();

/**
 * Call at the top of a test file: after each case its phase runs are closed and the pids it pushed on
 * `strays` (processes a double started) are killed, so a failed assertion leaves nothing running.
 */
export function closeAfterEach(): { strays: number[] } {
  const strays: number[] = [];
  afterEach(async () => {
    for (const pid of strays.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone, as it should be
      }
    }
    for (const run of [...open]) await run.close();
  });
  return { strays };
}

/** Whether the process `pid` still exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
