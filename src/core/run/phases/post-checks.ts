// Phases 6 and 7, after the verifier: everything stopped, then proof that the repository did not move while
// the verifier looked (the window watch, the snapshot, git's settings, the contract); only then is the
// verifier's verdict the attempt's (phase 7).
import { sandboxOn } from '../../../agents/sandbox-mode.js';
import { diffSnapshots, sameSnapshot, snapshotWorkspace } from '../../../git/snapshot.js';
import { digestInCommit } from '../../../git/path-digest.js';
import { writtenByContent } from '../../../git/window-watch.js';
import { worktreeIntegrity } from '../../../git/worktree-integrity.js';
import { statContract, touchedBetween } from '../../lock/contract-lock.js';
import { rewrittenByContent } from '../../lock/locked-watch.js';
import { stopEscaped } from '../stop-escaped.js';
import { CONTINUE, type Attempt, type PhaseResult } from '../attempt-state.js';
import { afterAppStart, checkContract, describeForged, gitSettingsChanged, guardPool, indexHides } from '../checks.js';
import { auditObjectsSince } from '../../../git/object-audit.js';
import { attemptPaths } from '../../../evidence/layout.js';
import { blockedDevOriginHint, runsNextDevAt, untrustedNextDevHostAt } from '../../app/next-dev-origin.js';
import { objectGuard, windowGuard, withScan } from '../guards-stood.js';

// A write in the window may be the app's by design: the user can say so (docs/config.md#app-writes).
const WRITE_FIX =
  'if your app writes it by design, declare it in app.writes in elenchos.config.json (e.g. "data/db.json", "log/**") or add it to .gitignore; `elenchos doctor` lists what the app writes';

export async function postChecks(attempt: Attempt): Promise<PhaseResult> {
  const { ctx, input, record } = attempt;
  attempt.say('stop', 'stopping the app and the verifier');
  await attempt.teardowns.runAll();
  const leftovers = await stopEscaped(ctx, input.number, 'verification');
  record.stoppedProcesses.push(...leftovers.stopped);
  record.guards.processScan = withScan(record.guards.processScan, 'verification', leftovers.table);
  attempt.checkInterrupted();
  await guardPool(ctx, (message) => attempt.say('stop', message));
  // Put back at once (before any other git call), but reported only after the checks that find
  // tampering: a hook dropped beside a rewritten test must not hide the rewrite.
  const settingsAfter = await gitSettingsChanged(ctx, 'something during verification');
  // An app outside the sandbox (the agent's code) can write the object store as the agent could.
  const objectsAfter = sandboxOn(ctx.config.agent)
    ? null
    : describeForged(
        (await auditObjectsSince(ctx.root, attempt.objectsSince ?? attempt.started)).forged,
        'something during verification',
        true,
      );
  // Audited again without the sandbox; in it, the agent's quarantine stays the word, and the app sees the store read-only.
  record.guards.objectStore = sandboxOn(ctx.config.agent) ? (record.guards.objectStore ?? objectGuard('read-only')) : objectGuard('audit');
  const window = await attempt.watch!.close();
  attempt.watch = null;
  record.window = window;
  record.guards.windowWatch = windowGuard(window);

  const after = await snapshotWorkspace(ctx.workspace, { exclude: ctx.excluded, skip: attempt.skip });
  record.snapshots.after = after;
  const blindAfter = await worktreeIntegrity(ctx.workspace, ctx.root, ctx.baselines.hiddenFiles);
  const forgedAfter = await indexHides(ctx, after);
  if (forgedAfter) blindAfter.push(forgedAfter);
  if (blindAfter.length > 0)
    return attempt.end(
      'ERROR',
      'UNSTABLE_WORKSPACE',
      `the workspace could not be measured after verification: ${blindAfter.join('; ')}`,
      true,
    );
  // A contract, test or lock rewritten, or files hidden from git, in the window: no verifier or dev
  // server does that; the app that did is the agent's code.
  // The stamps first (cheap); a file whose stamp moved is judged by content: seen with other bytes at any
  // look in the window, or holding them now. A dev server's same-bytes rewrite is no change.
  const moved = touchedBetween(attempt.stampsBefore!, await statContract(ctx.locked, ctx.workspace));
  const looks = attempt.lockedWatch ? await attempt.lockedWatch.close() : null;
  const touched = await rewrittenByContent(ctx.locked, ctx.workspace, moved, looks);
  if (touched.length > 0)
    return attempt.end(
      ...afterAppStart(
        `the contract was rewritten while the verifier read it: ${touched.join(', ')}`,
        touched,
        await runsNextDevAt(ctx.workspace, ctx.config.app.command),
      ),
    );
  const tamperedAfter = await checkContract(ctx);
  if (tamperedAfter.length > 0)
    return attempt.end(
      ...afterAppStart(
        `the contract changed during verification: ${tamperedAfter.join('; ')}`,
        tamperedAfter,
        await runsNextDevAt(ctx.workspace, ctx.config.app.command),
      ),
    );
  if (settingsAfter) return attempt.end('ERROR', 'UNSTABLE_WORKSPACE', settingsAfter);
  if (objectsAfter) return attempt.end('ERROR', 'UNSTABLE_WORKSPACE', objectsAfter, true);
  // Judged by content: a path rewritten with the bytes it had before the window (every look and now) is no write.
  const before = attempt.before!;
  const written = await writtenByContent(ctx.workspace, window, async (p) =>
    p in before.entries ? before.entries[p]! : digestInCommit(ctx.workspace, before.head, p),
  );
  if (written.length > 0) {
    const shown = written.slice(0, 10).join(', ') + (written.length > 10 ? `, … (${written.length} paths)` : '');
    return attempt.end(
      'ERROR',
      'UNSTABLE_WORKSPACE',
      `the workspace was written while the verifier looked: ${shown} (even if it was put back); ${WRITE_FIX}`,
    );
  }
  if (!sameSnapshot(attempt.before!, after)) {
    const changes = diffSnapshots(attempt.before!, after).join('; ');
    return attempt.end('ERROR', 'UNSTABLE_WORKSPACE', `the workspace changed while the verifier looked: ${changes}; ${WRITE_FIX}`);
  }
  if (!window.ok) return attempt.conclude('INCONCLUSIVE', `the verifier window is unprovable: ${window.problem}`, after);
  attempt.after = after;
  return CONTINUE;
}

/**
 * Phase 7: the verifier's verdict (and the sweep's after a pass) is the attempt's, now that nothing moved while
 * it looked. A FAIL whose app log holds Next.js's "Blocked cross-origin request" warning says so: the page's
 * JavaScript never ran, and the likely cause is app.url's host, not the product (core/app/next-dev-origin.ts).
 */
export async function verdict(attempt: Attempt): Promise<PhaseResult> {
  const { status, summary } = attempt.verdict!;
  const { app } = attempt.ctx.config;
  const host =
    status === 'FAIL' && app.command ? await untrustedNextDevHostAt(attempt.ctx.workspace, { command: app.command, url: app.url }) : null;
  const hint = await blockedDevOriginHint(attemptPaths(attempt.input.dir).appLog, host);
  return attempt.conclude(status, hint ? `${summary}; ${hint}` : summary, attempt.after);
}
