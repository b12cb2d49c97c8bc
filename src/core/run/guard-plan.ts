// What a run holds its verdict to, fixed before anything runs (made by guards-stood.ts planGuards): its own
// file, since the run's context carries it and the guards module reads the run's context types.
import type { AttemptGuards } from '../../evidence/guards-record.js';
import type { GuardName } from '../../states.js';

export interface GuardPlan {
  /** How the agent, the app and setup.command run (a role is null when that child does not run in this mode or config). */
  sandbox: NonNullable<AttemptGuards['sandbox']>;
  /** Guards the verdict cannot be VERIFIED without. */
  required: GuardName[];
  /** guards.allow, less what is required. */
  allowed: GuardName[];
}
