// What the guards say in words: a guard that cannot stand, said at the start of a run (terminal, and on
// stderr with --json), and the guards that stood behind a verdict (show, the report).
import { writeHuman } from '../cli-io.js';
import type { BlindGuard, RunReporter } from '../core/events.js';
import type { RunGuards } from '../evidence/guards-record.js';

/** One line for a guard that cannot stand: why, and what follows (the run stops, or the config let it off). */
export function describeBlind(blind: BlindGuard): string {
  const fix =
    blind.guard === 'sandbox'
      ? 'set agent.sandbox to "bwrap", or drop sandbox from guards.require / --require'
      : `if you accept a verdict without it, allow it by name in elenchos.config.json: "guards": { "allow": ["${blind.guard}"] }`;
  return blind.required
    ? `${blind.guard} cannot stand: ${blind.why}; this run cannot end VERIFIED and stops here (${fix})`
    : `${blind.guard} cannot stand: ${blind.why}; allowed by guards.allow (the evidence says it did not stand)`;
}

/** For --json: stdout is the record alone, so the guards that cannot stand are said on `stream` (stderr), at once. */
export function blindGuardsReporter(stream: NodeJS.WritableStream): RunReporter {
  return {
    onEvent(event) {
      if (event.type === 'run-start') for (const blind of event.blindGuards ?? []) writeHuman(stream, `elenchos: ${describeBlind(blind)}`);
    },
  };
}

/** `stood: a, b · missing: c (why)` for one run's guards, as show and the report print them. */
export function describeGuards(guards: RunGuards): { stood: string; missing: string[] } {
  const missing = guards.missing.map((g) => {
    const why = guards.detail[g]?.why;
    const needed = guards.required.includes(g) ? ' (required)' : guards.allowed.includes(g) ? ' (allowed)' : '';
    return `${g}${needed}: ${why ?? 'did not run'}`;
  });
  return { stood: guards.stood.join(', ') || 'none', missing };
}
