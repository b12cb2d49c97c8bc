// One attempt: agent (unless re-verifying) → contract check → snapshot → app → verifier → stop → snapshot → classify.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { agentAdapter } from '../agents/registry.js';
import type { AgentOutcome } from '../agents/types.js';
import { describeEnding } from '../agents/ending.js';
import { addCosts, afterRetry, TRANSIENT_RETRIES, worthRetrying } from '../agents/retry.js';
import type { BudgetTracker } from './budget.js';
import { judgeCriteria } from '../contract/criteria-map.js';
import { describeError, InterruptedError } from '../errors.js';
import { diffSnapshots, sameSnapshot, snapshotWorkspace, type WorkspaceSnapshot } from '../git/snapshot.js';
import { createOutputParents, watchWindow, type WindowWatch } from '../git/window-watch.js';
import { resetAppData } from '../git/app-data.js';
import { declaredFolders } from '../config/app-writes.js';
import { globMatcher } from '../util/glob-match.js';
import { gitStateChanges } from '../git/git-state.js';
import { hiddenEdits, worktreeIntegrity } from '../git/worktree-integrity.js';
import { PROCESS_TAG_ENV } from '../process/escaped-processes.js';
import { freePort } from '../process/free-port.js';
import { startApp } from './app.js';
import { appEnvironment } from './app-env.js';
import { appSandboxed } from './app-sandbox.js';
import { blameAppFailure, noteAppReady, type AppLauncher } from './app-blame.js';
import { dropTouchedSlots, markPool } from './pool-guard.js';
import { sweepAfterPass } from './sweep-step.js';
import { onlyToolConfigsChanged, statContract, TOOL_CONFIG_FIX, touchedBetween, verifyContract } from './contract-lock.js';
import { buildVerifyContext } from './verify-context.js';
import type { StartedVerification } from '../verifiers/types.js';
import { toolchainChanges, verifierToolchain } from './toolchain.js';
import { buildPrompt, type RepairEvidence } from './prompt.js';
import type { AttemptRecord, RunContext, Terminal } from './run-context.js';
import { processTag, sweepEscaped } from './sweep-escaped.js';
import { Teardowns } from './teardown.js';
import { pauseForTest } from './test-pause.js';

export interface AttemptInput {
  number: number;
  kind: 'agent' | 'reverify' | 'verify';
  /** Evidence of the previous verified attempt, for the repair prompt. */
  previous: RepairEvidence | null;
  /** Snapshot after the previous attempt: a repair must differ from it. */
  previousSnapshot: WorkspaceSnapshot | null;
  dir: string;
  maxAttempts: number;
}

export interface AttemptResult {
  record: AttemptRecord;
  snapshotAfter: WorkspaceSnapshot | null;
}

/** Runs one attempt; every child is stopped before it returns, whatever happens. */
export async function runAttempt(ctx: RunContext, input: AttemptInput): Promise<AttemptResult> {
  const started = Date.now();
  const record: AttemptRecord = {
    number: input.number,
    kind: input.kind,
    status: 'NOT_VERIFIED',
    summary: '',
    criteria: judgeCriteria(ctx.resolved.task.acceptanceCriteria, ctx.resolved.map, new Map()),
    findings: [],
    startedAt: new Date(started).toISOString(),
    durationMs: 0,
    agent: null,
    app: null,
    verifier: null,
    snapshots: { before: null, after: null },
    terminal: null,
    appFailure: null,
    cost: { agentUsd: null, agentTurns: null, inputTokens: null, outputTokens: null, kaneCredits: null },
    stoppedProcesses: [],
  };
  const teardowns = new Teardowns();
  let watch: WindowWatch | null = null;
  const phase = (p: Parameters<typeof ctx.reporter.onEvent>[0] & { type: 'phase' }) => ctx.reporter.onEvent(p);
  const say = (name: 'agent' | 'contract' | 'snapshot' | 'app' | 'verifier' | 'stop', message: string) =>
    phase({ type: 'phase', attempt: input.number, phase: name, message });
  // `tampering`: what only an agent does (docs/needs-human.md), as opposed to a write whose writer cannot be told.
  const end = (state: Terminal['state'], reason: Terminal['reason'], message: string, tampering = false): AttemptResult => {
    record.terminal = { state, reason, message, ...(tampering ? { tampering } : {}) };
    record.summary ||= message;
    return { record, snapshotAfter: null };
  };
  const checkInterrupted = () => {
    if (ctx.signal.aborted) throw new InterruptedError('interrupted');
  };
  try {
    ctx.reporter.onEvent({ type: 'attempt-start', attempt: input.number, kind: input.kind });
    if (input.kind === 'agent') {
      const over = ctx.budget.gate('agent');
      if (over) return end('ERROR', 'BUDGET_EXCEEDED', over);
      const { outcome, cost } = await dispatchAgent(ctx, input, say);
      record.agent = outcome;
      Object.assign(record.cost, cost);
      // The agent's turn is over: whatever it started is stopped before the app starts, group or not.
      const leftBehind = await sweepEscaped(ctx, input.number, 'agent');
      record.stoppedProcesses.push(...leftBehind.stopped);
      if (leftBehind.stopped.length > 0)
        say(
          'agent',
          `stopped ${leftBehind.stopped.length} process(es) that outlived the agent's turn: ${leftBehind.stopped.map((p) => p.pid).join(', ')}`,
        );
      checkInterrupted();
      await guardPool(ctx, (message) => say('agent', message));
      // Before any other git call: git would obey what the agent planted in its config.
      const settings = await gitSettingsChanged(ctx, 'the agent');
      if (settings) return end('ERROR', 'UNSTABLE_WORKSPACE', settings, true);
      if (!outcome.ok) return end('ERROR', outcome.reason, outcome.message);
      if (leftBehind.survivors.length > 0) {
        return end(
          'ERROR',
          'UNSTABLE_WORKSPACE',
          `process(es) the agent left running could not be stopped: ${leftBehind.survivors.map((p) => `${p.pid} ${p.command}`).join('; ')}`,
          true,
        );
      }
    }
    say('contract', 'checking the contract lock');
    const tampered = await checkContract(ctx);
    if (tampered.length > 0) return end('ERROR', 'CONTRACT_CHANGED', `the contract changed: ${tampered.join('; ')}`, true);

    // A verify's first attempt comes straight after the baselines were read (setup is over, no app or
    // verifier has started): only where the worktree points is asked here. The hidden files and the
    // index are compared with those baselines after the verifier, which finds anything hidden or forged
    // since, this moment included (test/e2e/warm-verify-shortcuts.test.ts).
    const fresh = input.kind === 'verify' && input.number === 1 && ctx.hiddenBaselineFresh === true;
    // Nothing but the agent ran since the baselines: hidden files or a forged index are its doing.
    const blind = await worktreeIntegrity(ctx.workspace, ctx.root, fresh ? 'fresh' : ctx.hiddenBaseline);
    if (blind.length > 0) return end('ERROR', 'UNSTABLE_WORKSPACE', `the workspace can no longer be measured: ${blind.join('; ')}`, true);
    // The app's own data goes back to the base commit before the app starts: what the agent left there
    // never reaches a verdict. A verify's first attempt follows a fresh reset of the worktree: already so.
    if (!fresh) await resetAppData(ctx.workspace, ctx.base, ctx.appWrites);
    const skip = globMatcher(ctx.appWrites);
    const before = await snapshotWorkspace(ctx.workspace, { exclude: ctx.excluded, skip });
    record.snapshots.before = before;
    const forged = fresh ? null : await indexHides(ctx, before);
    if (forged) return end('ERROR', 'UNSTABLE_WORKSPACE', `the workspace can no longer be measured: ${forged}`, true);
    if (input.kind === 'agent' && input.previousSnapshot && sameSnapshot(before, input.previousSnapshot)) {
      record.summary = 'the repair left the implementation unchanged';
      return end('FAILED', 'REPAIR_UNCHANGED', `attempt ${input.number} (a repair) changed nothing in the workspace`);
    }
    say('snapshot', `workspace at ${before.head.slice(0, 12)}, ${before.changed.length} changed path(s)`);
    // Watched from before the app starts until everything is stopped: a write undone in time is still a write.
    try {
      await createOutputParents(ctx.workspace, ctx.excluded);
      watch = await watchWindow(ctx.workspace, { exclude: ctx.excluded, skip, folders: declaredFolders(ctx.appWrites) });
    } catch (error) {
      record.status = 'INCONCLUSIVE';
      record.summary = `the verifier window cannot be watched, so its stability cannot be proved: ${describeError(error)}`;
      return { record, snapshotAfter: before };
    }
    // Teardowns run last-in first-out: the app's data goes back once the app and the verifier are stopped.
    teardowns.add('put the app data back', async () => void (await resetAppData(ctx.workspace, ctx.base, ctx.appWrites)));

    const port = ctx.config.app.port === 0 ? await freePort() : ctx.config.app.port;
    const url = ctx.config.app.url.replaceAll('{port}', String(port));
    const appCommand = ctx.config.app.command;
    const verifierDir = path.join(input.dir, 'verifier');
    const verifyContext = () =>
      buildVerifyContext({
        config: ctx.config,
        resolved: ctx.resolved,
        cwd: ctx.workspace,
        url,
        baseEnv: ctx.env,
        evidenceDir: verifierDir,
        signal: ctx.signal,
        onProgress: (progress) =>
          ctx.reporter.onEvent({ type: 'verifier', attempt: input.number, verifier: ctx.resolved.verifierType, progress }),
      });
    // A verifier that can be held back (Playwright) starts now, inside the watched window, and gets ready
    // (its runner loads and compiles the spec) while the app starts; it looks only once the app is ready
    // and the contract was checked again. The contract's stamps are taken before it reads anything.
    let early: { verifier: StartedVerification; stamps: Map<string, string> } | null = null;
    if (appCommand && ctx.resolved.verifier.start) {
      const stamps = await statContract(ctx.locked, ctx.workspace);
      await mkdir(verifierDir, { recursive: true });
      const starting = ctx.resolved.verifier.start(verifyContext());
      if (starting) {
        const started = await starting;
        early = { verifier: started, stamps };
        teardowns.add('stop the verifier started ahead of the app', () => started.abandon());
        say('verifier', `${ctx.resolved.verifierType} getting ready while the app starts`);
      }
    }
    if (appCommand) {
      const command = appCommand.replaceAll('{port}', String(port));
      const launch: AppLauncher = (cwd, dir, p) => {
        const at = ctx.config.app.url.replaceAll('{port}', String(p));
        const env: NodeJS.ProcessEnv = {
          ...appEnvironment(ctx.config, ctx.env, p, at),
          [PROCESS_TAG_ENV]: processTag(ctx, input.number, 'app'),
        };
        return startApp({
          command: appCommand.replaceAll('{port}', String(p)),
          url: at,
          cwd,
          env,
          sandbox: appSandboxed(ctx.config) ? { checkout: ctx.root, home: env.HOME } : null,
          readyTimeoutMs: ctx.config.app.readyTimeoutSeconds * 1000,
          logFile: path.join(dir, 'app.log'),
          signal: ctx.signal,
          onLine: (line) => ctx.reporter.onEvent({ type: 'output', source: 'app', line }),
        });
      };
      say('app', `starting \`${command}\`, waiting for ${url}`);
      const start = await launch(ctx.workspace, input.dir, port);
      checkInterrupted();
      if (!start.ok && start.reason === 'APP_URL_IN_USE') return end('ERROR', 'APP_URL_IN_USE', start.message);
      if (!start.ok) {
        const logTail = 'logTail' in start ? start.logTail : '';
        record.app = {
          url,
          port,
          command,
          ok: false,
          reason: start.reason,
          message: start.message,
          ...('exitCode' in start ? { exitCode: start.exitCode, logTail } : {}),
        };
        ctx.reporter.onEvent({ type: 'app-failed', attempt: input.number, message: start.message, logTail });
        // No verdict comes from this attempt: the waiting verifier goes before the base commit is tried.
        await early?.verifier.abandon();
        const blame = await blameAppFailure(ctx, { dir: input.dir, launch, failure: start.message });
        checkInterrupted();
        if (blame.probe) record.app.baseProbe = blame.probe;
        record.snapshots.after = before;
        if (blame.onBase) {
          record.status = 'APP_FAILED';
          record.summary = `the app did not start: ${start.message}`;
          return end('ERROR', 'APP_BROKEN_ON_BASE', blame.message);
        }
        record.status = 'FAIL';
        record.appFailure = `${start.message}${logTail ? `\nlast log lines:\n${logTail}` : ''}`;
        record.summary = `the app did not start: ${start.message}`;
        return { record, snapshotAfter: before };
      }
      teardowns.add('stop the app', () => start.app.stop());
      noteAppReady(ctx);
      record.app = { url, port, command, ok: true, readyMs: start.readyMs };
      say('app', `ready in ${start.readyMs} ms`);
      await pauseForTest('app', ctx.env);
    }

    const overBefore = ctx.budget.gate('verifier');
    if (overBefore) return end('ERROR', 'BUDGET_EXCEEDED', overBefore);
    const tamperedBefore = await checkContract(ctx);
    if (tamperedBefore.length > 0)
      return end(...afterAppStart(`the contract changed before verification: ${tamperedBefore.join('; ')}`, tamperedBefore));
    say('verifier', `${ctx.resolved.verifierType} on ${ctx.resolved.testFileLabel} against ${url}`);
    const stampsBefore = early ? early.stamps : await statContract(ctx.locked, ctx.workspace);
    if (!early) await mkdir(verifierDir, { recursive: true });
    const verification = early ? await early.verifier.run() : await ctx.resolved.verifier.verify(verifyContext());
    record.verifier = {
      status: verification.status,
      summary: verification.summary,
      exitCode: verification.exitCode,
      timedOut: verification.timedOut,
      durationMs: verification.durationMs,
      details: verification.details,
    };
    record.criteria = verification.criteria;
    record.findings = verification.findings;
    const credits = typeof verification.details.creditsConsumed === 'number' ? verification.details.creditsConsumed : null;
    record.cost.kaneCredits = credits;
    ctx.budget.recordVerifier(credits, verification.durationMs);
    const swept = await sweepAfterPass(ctx, record, verification, url, verifierDir);
    if ('overBudget' in swept) return end('ERROR', 'BUDGET_EXCEEDED', swept.overBudget);
    if (swept.ran) record.sweep = swept.sweep;
    const verdict = swept.ran
      ? { status: swept.status, summary: swept.summary }
      : { status: verification.status, summary: verification.summary };
    say('stop', 'stopping the app and the verifier');
    await teardowns.runAll();
    const leftovers = await sweepEscaped(ctx, input.number, 'verification');
    record.stoppedProcesses.push(...leftovers.stopped);
    checkInterrupted();
    await guardPool(ctx, (message) => say('stop', message));
    // Put back at once (before any other git call), but reported only after the checks that find
    // tampering: a hook dropped beside a rewritten test must not hide the rewrite.
    const settingsAfter = await gitSettingsChanged(ctx, 'something during verification');
    const window = await watch.close();
    watch = null;
    record.window = window;

    const after = await snapshotWorkspace(ctx.workspace, { exclude: ctx.excluded, skip });
    record.snapshots.after = after;
    const blindAfter = await worktreeIntegrity(ctx.workspace, ctx.root, ctx.hiddenBaseline);
    const forgedAfter = await indexHides(ctx, after);
    if (forgedAfter) blindAfter.push(forgedAfter);
    if (blindAfter.length > 0)
      return end('ERROR', 'UNSTABLE_WORKSPACE', `the workspace could not be measured after verification: ${blindAfter.join('; ')}`, true);
    // A contract, test or lock rewritten, or files hidden from git, in the window: no verifier or dev
    // server does that; the app that did is the agent's code.
    const touched = touchedBetween(stampsBefore, await statContract(ctx.locked, ctx.workspace));
    if (touched.length > 0) {
      return end(...afterAppStart(`the contract was rewritten while the verifier read it: ${touched.join(', ')}`, touched));
    }
    const tamperedAfter = await checkContract(ctx);
    if (tamperedAfter.length > 0)
      return end(...afterAppStart(`the contract changed during verification: ${tamperedAfter.join('; ')}`, tamperedAfter));
    if (settingsAfter) return end('ERROR', 'UNSTABLE_WORKSPACE', settingsAfter);
    if (window.written.length > 0) {
      const shown = window.written.slice(0, 10).join(', ') + (window.written.length > 10 ? `, … (${window.written.length} paths)` : '');
      return end(
        'ERROR',
        'UNSTABLE_WORKSPACE',
        `the workspace was written while the verifier looked: ${shown} (even if it was put back); ${WRITE_FIX}`,
      );
    }
    if (!sameSnapshot(before, after)) {
      return end(
        'ERROR',
        'UNSTABLE_WORKSPACE',
        `the workspace changed while the verifier looked: ${diffSnapshots(before, after).join('; ')}; ${WRITE_FIX}`,
      );
    }
    if (!window.ok) {
      record.status = 'INCONCLUSIVE';
      record.summary = `the verifier window is unprovable: ${window.problem}`;
      return { record, snapshotAfter: after };
    }
    record.status = verdict.status;
    record.summary = verdict.summary;
    return { record, snapshotAfter: after };
  } finally {
    await teardowns.runAll();
    if (watch) await watch.close().catch(() => undefined);
    record.durationMs = Date.now() - started;
  }
}

/**
 * CONTRACT_CHANGED once the app has started: always tampering (the app is the agent's code). When all that
 * changed is a tool config a dev server may rewrite (Next.js's tsconfig.json), the message says so, and
 * to review the change before committing it: such a rewrite could also map a module the verifier loads.
 */
function afterAppStart(message: string, problems: readonly string[]): [Terminal['state'], Terminal['reason'], string, boolean] {
  return ['ERROR', 'CONTRACT_CHANGED', onlyToolConfigsChanged(problems) ? `${message}; ${TOOL_CONFIG_FIX}` : message, true];
}

// A write in the window may be the app's by design: the user can say so (docs/config.md#app-writes).
const WRITE_FIX =
  'if your app writes it by design, declare it in app.writes in elenchos.config.json (e.g. "data/db.json", "log/**") or add it to .gitignore; `elenchos doctor` lists what the app writes';

async function dispatchAgent(
  ctx: RunContext,
  input: AttemptInput,
  say: (name: 'agent', message: string) => void,
): Promise<{ outcome: AgentOutcome; cost: ReturnType<BudgetTracker['recordAgent']> }> {
  const adapter = agentAdapter(ctx.config.agent.type);
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
  const promptFile = path.join(input.dir, 'prompt.md');
  await writeFile(promptFile, prompt);
  say('agent', `${input.previous ? 'repair' : 'dispatch'}: ${ctx.config.agent.type} agent (timeout ${ctx.config.agent.timeoutSeconds}s)`);
  // A retry gets the same prompt in the same worktree, its output appended to the same agent.log.
  const dispatch = () =>
    adapter.dispatch({
      cwd: ctx.workspace,
      checkout: ctx.root,
      prompt,
      promptFile,
      taskFile: path.join(ctx.workspace, ctx.resolved.label),
      attempt: input.number,
      processTag: processTag(ctx, input.number, 'agent'),
      config: ctx.config.agent,
      baseEnv: ctx.env,
      logFile: path.join(input.dir, 'agent.log'),
      signal: ctx.signal,
      onLine: (line) => ctx.reporter.onEvent({ type: 'output', source: 'agent', line }),
    });
  let outcome = await dispatch();
  let cost = ctx.budget.recordAgent(outcome);
  // A transient API error is tried again (bounded: TRANSIENT_RETRIES) before the attempt counts, within the budget.
  for (let retry = 0; retry < TRANSIENT_RETRIES && worthRetrying(outcome) && !ctx.signal.aborted; retry++) {
    const over = ctx.budget.gate('agent');
    if (over) {
      say('agent', `${describeEnding(outcome.ending!)}; not tried again: ${over}`);
      break;
    }
    say('agent', `${describeEnding(outcome.ending!)}: trying once more`);
    const again = await dispatch();
    cost = addCosts(cost, ctx.budget.recordAgent(again));
    outcome = afterRetry(outcome, again);
  }
  const took = `${Math.round(outcome.durationMs / 100) / 10}s`;
  // The agent's own word for its end; the verifier still decides whether the work is done.
  const ending = outcome.ending ? `: ${describeEnding(outcome.ending)}` : '';
  say('agent', outcome.ok ? `ended after ${took}${ending}` : `failed: ${outcome.message}`);
  return { outcome, cost };
}

/** Problems with the contract in the workspace and in the main checkout (empty when intact). */
async function checkContract(ctx: RunContext): Promise<string[]> {
  const places =
    ctx.workspace === ctx.root
      ? [{ label: 'checkout', root: ctx.root }]
      : [
          { label: 'worktree', root: ctx.workspace },
          { label: 'main checkout', root: ctx.root },
        ];
  const problems: string[] = [];
  for (const place of places) {
    const currentExtra = await ctx.resolved.verifier.lockedInputs(place.root, ctx.resolved.testFileLabel);
    problems.push(...(await verifyContract(ctx.locked, { ...place, currentExtra })));
  }
  const swapped = toolchainChanges(ctx.toolchain, await verifierToolchain(ctx));
  if (swapped.length > 0) problems.push(`the verifier's toolchain in the worktree changed (${swapped.join(', ')})`);
  return problems;
}

/** Whether git's own settings moved since before the agent ran; they are put back either way. */
async function gitSettingsChanged(ctx: RunContext, who: string): Promise<string | null> {
  if (!ctx.gitState) return null;
  const changed = await gitStateChanges(ctx.gitState, { restore: true });
  if (changed.length === 0) return null;
  const shown = changed.slice(0, 5).join(', ') + (changed.length > 5 ? ` and ${changed.length - 5} more` : '');
  return `${who} changed git's own settings, which every check of the workspace relies on (put back as they were): ${shown}`;
}

/** Whether the worktree's index hides an edit from the snapshot (checked against the index from before the agent). */
async function indexHides(ctx: RunContext, snapshot: WorkspaceSnapshot): Promise<string | null> {
  if (!ctx.indexBefore) return null;
  const hidden = await hiddenEdits(ctx.workspace, ctx.indexBefore, snapshot.changed, ctx.excluded);
  if (hidden.length === 0) return null;
  const shown = hidden.slice(0, 5).join(', ') + (hidden.length > 5 ? ` and ${hidden.length - 5} more` : '');
  return `the index claims the committed content for file(s) that differ from it: ${shown}`;
}

/** Drops every warm worktree whose trusted index changed while the agent or its app ran (see pool-guard.ts). */
async function guardPool(ctx: RunContext, say: (message: string) => void): Promise<void> {
  if (!ctx.poolMarks) return;
  const dropped = await dropTouchedSlots(ctx.root, ctx.poolMarks);
  ctx.poolMarks = await markPool(ctx.root);
  if (dropped.length > 0) say(`warm worktree(s) ${dropped.join(', ')} changed while it ran: dropped, never reused`);
}
