// What stood behind a verdict (docs/verification.md#what-stood-behind-a-verdict): each guard as an attempt
// ran it, the run's summary, and the one rule that a run whose required guard did not stand is never
// VERIFIED. Pure: the phases hand in what they observed; nothing a child writes is read here.
import type { Config } from '../../config/config-schema.js';
import type { AttemptGuards, ProcessScan, RunGuards, SandboxRole } from '../../evidence/guards-record.js';
import type { WindowReport } from '../../git/window-watch.js';
import type { TableFacts } from '../../process/process-table.js';
import { GUARD_NAMES, type GuardName, type RunMode } from '../../states.js';
import type { Terminal } from './run-context.js';
import type { GuardPlan } from './guard-plan.js';

export type { GuardPlan } from './guard-plan.js';

/** The guards every attempt runs whatever the config says: each must stand for a VERIFIED, unless guards.allow names it. */
export const ALWAYS_RUN: readonly GuardName[] = ['processScan', 'windowWatch', 'objectStore', 'inputsPinned'];

/**
 * The plan: which children run sandboxed and why, and which guards the verdict needs (`extra`: verify --require).
 * `resolved`: the sandbox as resolved before the run (its mode, and why: whether it holds here); without it, the config's word.
 */
export function planGuards(
  config: Pick<Config, 'agent' | 'app' | 'setup' | 'guards'>,
  mode: RunMode,
  extra: readonly GuardName[] = [],
  resolved: SandboxRole | null = null,
): GuardPlan {
  const role: SandboxRole = resolved ?? {
    mode: config.agent.sandbox === 'bwrap' ? 'bwrap' : 'none',
    why: `agent.sandbox is "${config.agent.sandbox}"`,
  };
  const roles = {
    agent: mode === 'run' ? role : null,
    app: config.app.command ? role : null,
    setup: config.setup.command ? role : null,
  };
  const ran = Object.values(roles).filter((r): r is SandboxRole => r !== null);
  const unsandboxed = ran.filter((r) => r.mode !== 'bwrap');
  const allowed = [...config.guards.allow];
  const wanted = new Set<GuardName>([...config.guards.require, ...extra]);
  const required = GUARD_NAMES.filter((g) => wanted.has(g) || (ALWAYS_RUN.includes(g) && !allowed.includes(g)));
  return {
    sandbox: {
      stood: ran.length > 0 && unsandboxed.length === 0,
      how: ran.length === 0 ? 'no child to confine' : unsandboxed.length === 0 ? 'bwrap' : 'none',
      why: unsandboxed[0]?.why ?? null,
      ...roles,
    },
    required,
    // A guard both required (by --require) and allowed is required: the stricter word wins.
    allowed: allowed.filter((g) => !required.includes(g)),
  };
}

const WHEN: Record<ProcessScan['after'], string> = {
  start: 'at the start',
  agent: "after the agent's turn",
  verification: 'after verification',
};

/** The process scan after one more look (`after` the agent's turn, or verification), folded into what came before. */
export function withScan(
  previous: AttemptGuards['processScan'],
  after: ProcessScan['after'],
  table: TableFacts,
): NonNullable<AttemptGuards['processScan']> {
  const scans = [...(previous?.scans ?? []), { after, source: table.source, blind: [...table.blind], why: table.why }];
  const failed = scans.find((s) => s.source === 'unavailable' || s.blind.length > 0);
  return {
    stood: failed === undefined,
    how: [...new Set(scans.map((s) => s.source))].join(', '),
    why: failed ? `${WHEN[failed.after]}: ${failed.why}` : null,
    scans,
  };
}

/** The window watch as its report says: it stood when it proved it saw. */
export function windowGuard(report: WindowReport): NonNullable<AttemptGuards['windowWatch']> {
  return report.ok
    ? { stood: true, how: 'watched', why: null, directories: report.directories }
    : { stood: false, how: 'watched', why: report.problem, directories: report.directories };
}

/** The object store guard: the agent's objects quarantined, the store audited, or out of reach (a sandboxed app). */
export function objectGuard(how: 'quarantine' | 'audit' | 'read-only'): NonNullable<AttemptGuards['objectStore']> {
  const why =
    how === 'quarantine'
      ? "the agent's new objects were checked in a quarantine before they reached the store"
      : how === 'audit'
        ? 'objects written since the agent started were audited'
        : 'the sandboxed app sees the object store read-only';
  return { stood: true, how, why };
}

/** The contract lock, checked: what it covers (files by role). */
export function inputsGuard(locked: readonly { path: string; role: string }[]): NonNullable<AttemptGuards['inputsPinned']> {
  const files = new Set(locked.filter((f) => f.role !== 'task-canonical').map((f) => f.path));
  const roles = [...new Set(locked.map((f) => f.role))].sort();
  return { stood: true, how: 'locked by sha256 and checked', why: null, files: files.size, roles };
}

/** Each guard name and whether it stood in `guards` (a guard never reached did not). */
export function standing(guards: AttemptGuards): { stood: GuardName[]; missing: GuardName[] } {
  const stood = GUARD_NAMES.filter((g) => guards[g]?.stood === true);
  return { stood, missing: GUARD_NAMES.filter((g) => !stood.includes(g)) };
}

/** run.json `guards`: the last attempt's guards (or, with none, what was known at the start) against the plan. */
export function summarizeGuards(
  plan: GuardPlan,
  attempt: { number: number; guards?: AttemptGuards } | null,
  atStart: AttemptGuards,
): RunGuards {
  const detail = attempt?.guards ?? atStart;
  return { attempt: attempt?.number ?? null, ...standing(detail), required: plan.required, allowed: plan.allowed, detail };
}

/** Required guards that `guards` shows did not stand, each with why (for one line). */
export function missingRequired(plan: GuardPlan, guards: AttemptGuards): { guard: GuardName; why: string }[] {
  return standing(guards)
    .missing.filter((g) => plan.required.includes(g))
    .map((guard) => ({ guard, why: guards[guard]?.why ?? 'it never ran' }));
}

/** The one line naming what was missing: `required guard(s) did not stand: sandbox (agent.sandbox is "none")`. */
export function describeMissing(missing: readonly { guard: GuardName; why: string }[]): string {
  return `required guard(s) did not stand: ${missing.map((m) => `${m.guard} (${m.why})`).join('; ')}`;
}

/**
 * The run's end held to its plan: a VERIFIED whose last attempt lacks a required guard becomes ERROR
 * GUARD_MISSING (the verifier's PASS stays in the attempt; the run cannot vouch for it). Any other end stands.
 */
export function holdToPlan(terminal: Terminal, plan: GuardPlan, last: { guards?: AttemptGuards } | null): Terminal {
  if (terminal.state !== 'VERIFIED') return terminal;
  const missing = missingRequired(plan, last?.guards ?? {});
  if (missing.length === 0) return terminal;
  return { state: 'ERROR', reason: 'GUARD_MISSING', message: describeMissing(missing) };
}
