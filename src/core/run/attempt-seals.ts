// The attempts of a run sealed so far (src/evidence/seal-attempt.ts): each one when it ends, before the
// next agent turn, so the final manifest lists what each attempt left, not what a later agent made of it.
import { sealAttempt, type AttemptSeal } from '../../evidence/seal-attempt.js';
import { signingKeyFor } from '../../util/signing-key.js';
import type { RunContext } from './run-context.js';

/** Seals attempt `number`'s folder `dir` (redacted, then its manifest, HMAC-signed when a key is set). */
export async function sealEndedAttempt(ctx: RunContext, number: number, dir: string): Promise<void> {
  const sealed = await sealAttempt(ctx.runDir, dir, number, {
    redactor: ctx.redactor,
    signingKey: signingKeyFor(ctx.env),
  });
  ctx.attemptSeals.push(sealed);
}

/** The attempts sealed so far, in order. */
export function sealsOf(ctx: RunContext): AttemptSeal[] {
  return ctx.attemptSeals;
}
