// Phase 1, the agent's turn (attempts of kind `agent` only): dispatch with its transient retries, then stop
// whatever it left running and check what only an agent could have changed (git's settings, the pool).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sandboxOn } from '../../../agents/sandbox-mode.js';
import type { AgentOutcome } from '../../../agents/types.js';
import { describeEnding } from '../../../agents/ending.js';
import { addCosts, afterRetry, TRANSIENT_RETRIES, worthRetrying } from '../../../agents/retry.js';
import type { BudgetTracker } from '../budget.js';
import { buildPrompt } from '../prompt.js';
import type { AttemptContext } from '../run-context.js';
import { processTag, stopEscaped } from '../stop-escaped.js';
import { replayTurn } from './replay-turn.js';
import { found, type Attempt, type AttemptInput, type PhaseResult } from '../attempt-state.js';
import { describeForged, gitSettingsChanged, guardPool } from '../checks.js';
import { attemptPaths } from '../../../evidence/layout.js';
import { auditObjectsSince } from '../../../git/object-audit.js';
import {
  openObjectQuarantine,
  removeObjectQuarantine,
  settleObjectQuarantine,
  type ObjectQuarantine,
} from '../../../git/object-quarantine.js';
import { describeMissing, objectGuard, withScan } from '../guards-stood.js';

/** What the agent's turn hands on: from when the object store is audited again after the verifier. */
export interface AgentTurnFound {
  /** Without the sandbox, where the audit of the agent's turn stopped looking; null: from the attempt's start. */
  objectsSince: number | null;
}

const NO_AGENT: PhaseResult<AgentTurnFound> = found({ objectsSince: null });

export async function agentTurn(attempt: Attempt): Promise<PhaseResult<AgentTurnFound>> {
  const { ctx, input, record } = attempt;
  if (input.kind !== 'agent') return NO_AGENT;
  if (ctx.replay) {
    const replayed = await replayTurn(attempt, ctx.replay);
    return replayed.next === 'end' ? replayed : NO_AGENT;
  }
  const over = ctx.budget.gate('agent');
  if (over) return attempt.end('ERROR', 'BUDGET_EXCEEDED', over);
  // In the sandbox the object store is read-only: the agent's new objects go to a quarantine folder.
  const quarantine = sandboxOn(ctx.config.agent) ? await openObjectQuarantine(ctx.root, ctx.runId) : null;
  if (quarantine) attempt.teardowns.add('remove the object quarantine', () => removeObjectQuarantine(quarantine));
  const agentStarted = Date.now();
  const { outcome, cost } = await dispatchAgent(ctx, input, (message) => attempt.say('agent', message), quarantine);
  record.agent = outcome;
  Object.assign(record.cost, cost);
  // The agent's turn is over: whatever it started is stopped before the app starts, group or not.
  const leftBehind = await stopEscaped(ctx, input.number, 'agent');
  record.stoppedProcesses.push(...leftBehind.stopped);
  record.guards.processScan = withScan(record.guards.processScan, 'agent', leftBehind.table);
  if (leftBehind.stopped.length > 0)
    attempt.say(
      'agent',
      `stopped ${leftBehind.stopped.length} process(es) that outlived the agent's turn: ${leftBehind.stopped.map((p) => p.pid).join(', ')}`,
    );
  attempt.checkInterrupted();
  // Its processes are gone: only objects that hash to their name reach the store, and none replaces one.
  // Without the sandbox, what it wrote into the store itself since its turn began is checked there.
  let objectsSince: number | null = null;
  const forged = quarantine
    ? describeForged((await settleObjectQuarantine(ctx.root, quarantine)).forged, 'the agent', false)
    : describeForged((await auditObjectsSince(ctx.root, agentStarted, (at) => (objectsSince = at))).forged, 'the agent', true);
  record.guards.objectStore = objectGuard(quarantine ? 'quarantine' : 'audit');
  await guardPool(ctx, (message) => attempt.say('agent', message));
  // Before any other git call: git would obey what the agent planted in its config.
  const settings = await gitSettingsChanged(ctx, 'the agent');
  if (settings) return attempt.end('ERROR', 'UNSTABLE_WORKSPACE', settings, true);
  if (forged) return attempt.end('ERROR', 'UNSTABLE_WORKSPACE', forged, true);
  if (!outcome.ok) return attempt.end('ERROR', outcome.reason, outcome.message);
  // The table saw everything when the run started (else it would have stopped there): blind now, it was blinded
  // in the agent's turn (a tmpfs over /proc), and what the agent left running went unseen. Only an agent does that.
  const scan = record.guards.processScan;
  if (scan && !scan.stood && ctx.guardPlan.required.includes('processScan'))
    return attempt.end('ERROR', 'GUARD_MISSING', describeMissing([{ guard: 'processScan', why: scan.why ?? scan.how }]), true);
  if (leftBehind.survivors.length > 0) {
    return attempt.end(
      'ERROR',
      'UNSTABLE_WORKSPACE',
      `process(es) the agent left running could not be stopped: ${leftBehind.survivors.map((p) => `${p.pid} ${p.command}`).join('; ')}`,
      true,
    );
  }
  return found({ objectsSince });
}

async function dispatchAgent(
  ctx: AttemptContext,
  input: AttemptInput,
  say: (message: string) => void,
  quarantine: ObjectQuarantine | null,
): Promise<{ outcome: AgentOutcome; cost: ReturnType<BudgetTracker['recordAgent']> }> {
  const adapter = ctx.agent;
  const prompt = buildPrompt(
    {
      task: ctx.resolved.task,
      taskFile: ctx.resolved.label,
      lockedFiles: [...new Set(ctx.locked.map((f) => f.path))],
      appCommand: ctx.config.app.command,
      attempt: input.number,
      maxAttempts: input.maxAttempts,
    },
    input.previous,
  );
  const promptFile = attemptPaths(input.dir).prompt;
  await writeFile(promptFile, prompt);
  say(`${input.previous ? 'repair' : 'dispatch'}: ${ctx.config.agent.type} agent (timeout ${ctx.config.agent.timeoutSeconds}s)`);
  // A retry gets the same prompt in the same worktree, its output appended to the same agent.log.
  const dispatch = () =>
    adapter.dispatch({
      cwd: ctx.workspace,
      checkout: ctx.root,
      objectQuarantine: quarantine?.dir,
      heldObjects: quarantine?.into,
      prompt,
      promptFile,
      taskFile: path.join(ctx.workspace, ctx.resolved.label),
      attempt: input.number,
      processTag: processTag(ctx, input.number, 'agent'),
      config: ctx.config.agent,
      baseEnv: ctx.env,
      logFile: attemptPaths(input.dir).agentLog,
      signal: ctx.signal,
      onLine: (line) => ctx.reporter.onEvent({ type: 'output', source: 'agent', line }),
    });
  let outcome = await dispatch();
  let cost = ctx.budget.recordAgent(outcome);
  // A transient API error is tried again (bounded: TRANSIENT_RETRIES) before the attempt counts, within the budget.
  for (let retry = 0; retry < TRANSIENT_RETRIES && worthRetrying(outcome) && !ctx.signal.aborted; retry++) {
    const over = ctx.budget.gate('agent');
    if (over) {
      say(`${describeEnding(outcome.ending!)}; not tried again: ${over}`);
      break;
    }
    say(`${describeEnding(outcome.ending!)}: trying once more`);
    const again = await dispatch();
    cost = addCosts(cost, ctx.budget.recordAgent(again));
    outcome = afterRetry(outcome, again);
  }
  const took = `${Math.round(outcome.durationMs / 100) / 10}s`;
  // The agent's own word for its end; the verifier still decides whether the work is done.
  const ending = outcome.ending ? `: ${describeEnding(outcome.ending)}` : '';
  say(outcome.ok ? `ended after ${took}${ending}` : `failed: ${outcome.message}`);
  return { outcome, cost };
}
