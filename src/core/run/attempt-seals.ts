// The attempts of a run sealed so far (src/evidence/seal-attempt.ts): each one when it ends, before the
// next agent turn, so the final manifest lists what each attempt left, not what a later agent made of it.
import { sealAttempt, type AttemptSeal } from '../../evidence/seal-attempt.js';
import { signingKeyFor } from '../../util/signing-key.js';
import type { RunContext } from './run-context.js';
import { runSecretValues } from './run-secrets.js';

// By run folder, not by context object: the attempts run in a copy of the run's context (with its
// baselines), and the run is sealed with the context itself.
const seals = new Map<string, AttemptSeal[]>();

/** Seals attempt `number`'s folder `dir` (redacted, then its manifest, HMAC-signed when a key is set). */
export async function sealEndedAttempt(ctx: RunContext, number: number, dir: string): Promise<void> {
  const sealed = await sealAttempt(ctx.runDir, dir, number, {
    values: runSecretValues(ctx.config, ctx.resolved.task, ctx.env),
    signingKey: signingKeyFor(ctx.env),
  });
  seals.set(ctx.runDir, [...(seals.get(ctx.runDir) ?? []), sealed]);
}

/** The attempts of this run sealed so far, in order. */
export function sealsOf(ctx: RunContext): AttemptSeal[] {
  return seals.get(ctx.runDir) ?? [];
}

/** Forgets the run's attempt seals once the run itself is sealed (a long-lived process runs many). */
export function forgetSeals(ctx: RunContext): void {
  seals.delete(ctx.runDir);
}
