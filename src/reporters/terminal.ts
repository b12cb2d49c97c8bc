// Live terminal progress: each phase and each verifier step as it happens, with elapsed time.
import { writeHuman } from '../cli-io.js';
import type { RunEvent, RunReporter } from '../core/events.js';
import type { CriterionStatus } from '../states.js';
import { stepLabel } from './step-heading.js';
import { describeBlind } from './guard-lines.js';

export interface TerminalReporterOptions {
  stream: NodeJS.WritableStream;
  /** Show the app's own output too. */
  verbose?: boolean;
  now?: () => number;
}

const MARK: Record<CriterionStatus, string> = { PASS: '✓', FAIL: '✗', UNVERIFIED: '?' };

/** A reporter that writes human progress lines to `stream`. */
export function terminalReporter(options: TerminalReporterOptions): RunReporter {
  const now = options.now ?? Date.now;
  let started = now();
  const out = (line: string) => writeHuman(options.stream, line);
  const clock = () => {
    const ms = now() - started;
    const m = Math.floor(ms / 60_000);
    const s = ((ms % 60_000) / 1000).toFixed(1).padStart(4, '0');
    return `[${String(m).padStart(2, '0')}:${s}]`;
  };
  return {
    onEvent(event: RunEvent) {
      switch (event.type) {
        case 'run-start':
          started = now();
          out(
            `elenchos ${event.mode} ${event.taskId} (${event.taskFile}) · run ${event.runId}${event.unsandboxed ? ` · ${event.unsandboxed}` : ''}`,
          );
          for (const blind of event.blindGuards ?? []) out(`  guard    ${describeBlind(blind)}`);
          break;
        case 'attempt-start':
          out(`${clock()} attempt ${event.attempt}${event.kind === 'reverify' ? ' (re-verify only, no repair charged)' : ''}`);
          break;
        case 'phase':
          out(`${clock()}   ${event.phase.padEnd(8)} ${event.message}`);
          break;
        case 'output':
          if (event.source !== 'app' || options.verbose) out(`  [${event.source}] ${event.line}`);
          break;
        case 'verifier': {
          const p = event.progress;
          const verifierName = event.verifier;
          if (p.kind === 'step-start') out(`${clock()}   [${verifierName}] ${stepLabel(p.step, p.heading)} …`);
          else if (p.kind === 'step-end') {
            const time = p.durationSeconds !== null ? ` (${p.durationSeconds}s)` : '';
            out(`${clock()}   [${verifierName}] ${p.status === 'passed' ? '✓' : '✗'} ${stepLabel(p.step, p.heading)}${time}`);
          } else out(`${clock()}   [${verifierName}] ${p.message}`);
          break;
        }
        case 'app-failed':
          // The app's own words are what a user needs to fix a start command: shown even without --verbose.
          out(`${clock()}   app      did not come up: ${event.message}`);
          if (event.logTail) {
            out('    last lines of the app log:');
            for (const line of event.logTail.split('\n')) out(`    | ${line}`);
          }
          break;
        case 'attempt-end':
          out(`${clock()} attempt ${event.attempt} → ${event.status}${event.summary ? `: ${event.summary}` : ''}`);
          for (const c of event.criteria) out(`    ${MARK[c.status] ?? ' '} ${c.id} ${c.status}`);
          break;
        case 'run-end':
          out('');
          out(`${event.state}${event.reason ? ` (${event.reason})` : ''} in ${clock().slice(1, -1)} — exit ${event.exitCode}`);
          if (event.message) out(`  ${event.message}`);
          out(`  evidence: ${event.runDir}`);
          out(`  elenchos show ${event.runId}   ·   elenchos report ${event.runId}`);
          // The checkout was never touched: say how to take what was verified.
          if (event.state === 'VERIFIED' && event.mode === 'run')
            out(`  take the change: elenchos apply ${event.runId}   (--commit to commit it, --branch for a branch)`);
          break;
      }
    },
  };
}
