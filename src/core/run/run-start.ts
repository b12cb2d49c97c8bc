// The run-start event, sent once the run's context and record exist.
import { appSandboxed, openWithoutSandbox } from '../app/app-sandbox.js';
import type { BlindGuard } from '../events.js';
import { signingKeyExposure } from '../key-exposure.js';
import type { RunContext } from './run-context.js';

/** The run-start event (with the guards already known not to stand), and a warning when the agent could read the signing key. */
export function announceRun(ctx: RunContext, blindGuards: BlindGuard[]): void {
  const { config, resolved } = ctx;
  const unsandboxed = appSandboxed(config) ? {} : { unsandboxed: openWithoutSandbox(ctx.mode, ctx.sandbox) };
  ctx.reporter.onEvent({
    type: 'run-start',
    runId: ctx.runId,
    taskId: resolved.task.id,
    taskFile: resolved.label,
    runDir: ctx.runDir,
    workspace: ctx.workspace,
    mode: ctx.mode,
    ...unsandboxed,
    ...(blindGuards.length > 0 ? { blindGuards } : {}),
  });
  const exposed = ctx.mode === 'run' ? signingKeyExposure(ctx.env, ctx.sandbox.mode) : null;
  if (exposed)
    ctx.reporter.onEvent({ type: 'phase', attempt: null, phase: 'evidence', message: `warning: ${exposed.message}; ${exposed.fix}` });
}
