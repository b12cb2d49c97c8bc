// `elenchos verify <task.json> --verifier-only --url <url>`: run the task's verifier once against an
// app you started, and print its verdict per step and per criterion. The full `verify` (worktrees,
// app start, every task) is another issue; without --verifier-only this command says so and exits 3.
import path from 'node:path';
import type { Command } from 'commander';
import { writeLine, type CliIO } from '../cli-io.js';
import { ExitCode, InputError } from '../errors.js';
import type { VerificationResult, VerifierProgress } from '../verifiers/types.js';

export interface VerifyCommandOptions {
  verifierOnly?: boolean;
  url?: string;
  json?: boolean;
  evidence?: string;
  config?: string;
}

const EXIT: Record<VerificationResult['status'], number> = { PASS: ExitCode.VERIFIED, FAIL: ExitCode.FAILED, VERIFIER_ERROR: ExitCode.ERROR, INCONCLUSIVE: ExitCode.ERROR };

export function registerVerify(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('verify')
    .description('check committed code against task contracts with no agent (only --verifier-only is available yet)')
    .argument('[tasks...]', 'task contract files (JSON); exactly one with --verifier-only')
    .option('--verifier-only', 'run the verifier once against an app already running at --url (no worktree, no app start)')
    .option('--url <url>', "the running app's URL (passed to Kane as start_url)")
    .option('--evidence <dir>', 'where to keep the verifier output (default: .elenchos/verifier-only/<time>)')
    .option('--config <file>', 'config file (default: elenchos.config.json at the repository root)')
    .option('--json', 'print the verification result as JSON')
    .action(async (tasks: string[], options: VerifyCommandOptions) => {
      if (!options.verifierOnly) {
        throw new InputError('elenchos verify: the full verify mode (a worktree per task, the app started for you) is not built yet; run the verifier against an app you started with: elenchos verify <task.json> --verifier-only --url <url>');
      }
      if (tasks.length !== 1) throw new InputError(`elenchos verify --verifier-only takes exactly one task file (got ${tasks.length})`);
      if (!options.url) throw new InputError('elenchos verify --verifier-only needs --url <url> of the running app');
      const { verifyOnce } = await import('../core/verify-once.js');
      const evidenceDir = path.resolve(io.cwd, options.evidence ?? path.join('.elenchos', 'verifier-only', new Date().toISOString().replace(/[:.]/g, '-')));
      const { withInterrupts } = await import('./interrupts.js');
      let interrupted = false;
      const result = await withInterrupts(io, (signal) => {
        signal.addEventListener('abort', () => (interrupted = true), { once: true });
        return verifyOnce({
          cwd: io.cwd,
          taskFile: tasks[0]!,
          url: options.url!,
          configFile: options.config,
          env: io.env,
          signal,
          evidenceDir,
          onProgress: options.json ? undefined : (p) => printProgress(io, p),
        });
      });
      if (options.json) writeLine(io.stdout, JSON.stringify({ evidenceDir, ...result }, null, 2));
      else printResult(io, result, evidenceDir);
      setExit(interrupted ? ExitCode.INTERRUPTED : EXIT[result.status]);
    });
}

function printProgress(io: CliIO, p: VerifierProgress): void {
  if (p.kind === 'step-end') {
    const seconds = p.durationSeconds === null ? '' : `  (${p.durationSeconds}s)`;
    writeLine(io.stdout, `  ${p.status === 'passed' ? '✓' : '✗'} step ${p.step}  ${p.heading}${seconds}`);
  } else if (p.kind === 'note') {
    writeLine(io.stdout, `  ${p.message}`);
  }
}

function printResult(io: CliIO, result: VerificationResult, evidenceDir: string): void {
  const out = io.stdout;
  const steps = (result.details.steps ?? []) as { index: number; heading: string; status: string }[];
  for (const s of steps.filter((x) => x.status === 'skipped' || x.status === 'unfinished')) {
    writeLine(out, `  - step ${s.index}  ${s.heading}  (${s.status === 'skipped' ? 'did not run' : 'did not finish'})`);
  }
  for (const f of result.findings) {
    const where = f.step === null ? '' : `step ${f.step}: `;
    const codes = [f.resultCode, f.reasonCode].filter((x) => x !== null).join(' ');
    const v = f.verdict;
    const triage = v ? ` [${[v.family, v.category].filter(Boolean).join('/')}${v.confirmed ? ', confirmed' : ''}${v.confidence === null ? '' : `, ${v.confidence}`}]` : '';
    writeLine(out, `  ! ${f.kind.replace('_', ' ')}: ${where}${v?.oneLiner ?? f.reason ?? ''}${codes ? ` (${codes})` : ''}${triage}`);
  }
  const width = Math.max(2, ...result.criteria.map((c) => c.id.length));
  writeLine(out, 'criteria');
  for (const c of result.criteria) {
    const at = c.steps.length > 0 ? `step ${c.steps.join(', ')}` : 'no step';
    writeLine(out, `  ${c.id.padEnd(width)}  ${c.status.padEnd(10)}  ${at.padEnd(10)}  ${c.description}${c.note ? ` — ${c.note}` : ''}`);
  }
  writeLine(out, `${result.status}: ${result.summary}`);
  writeLine(out, `evidence: ${evidenceDir}`);
}
