// `elenchos verify [tasks...]`: the committed code against every contract, no agent;
// `--verifier-only --url <url>` runs one task's verifier once against an app you started.
import path from 'node:path';
import type { Command } from 'commander';
import { writeHuman, writeLine, type CliIO } from '../cli-io.js';
import { ExitCode, InputError } from '../errors.js';
import { parseGuards, parsePositive, parseWorkers } from './options.js';
import type { VerifyCommandOptions } from './verify-options.js';
import { withAttestation, type AttestFlags } from './attest-option.js';
import { withShardSeal, type ShardSealFlags } from './shard-seal-option.js';
import type { VerificationResult, VerifierProgress } from '../verifiers/types.js';
import { verifierOnlyDir } from '../evidence/layout.js';
import { stepLabel } from '../reporters/step-heading.js';

const EXIT: Record<VerificationResult['status'], number> = {
  PASS: ExitCode.VERIFIED,
  FAIL: ExitCode.FAILED,
  VERIFIER_ERROR: ExitCode.ERROR,
  INCONCLUSIVE: ExitCode.ERROR,
};

export function registerVerify(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('verify')
    .description('check the committed code against task contracts, with no agent (exit 0 only if every task is VERIFIED)')
    .argument('[tasks...]', 'task files or globs (default: "tasks" from the config); exactly one with --verifier-only')
    .option('--workers <n>', 'tasks verified in parallel, each in its own worktree and port (1 to 64)', parseWorkers, 1)
    .option(
      '--shard <i/n>',
      "verify only shard i of n (split deterministically across CI machines); 'auto' (or auto/<n>) reads the CI's parallel-job index and total",
    )
    .option('--in-place', 'verify in the checkout itself instead of a worktree (it must be clean; one task at a time)')
    .option('--junit <file>', 'also write JUnit XML (one testcase per criterion)')
    .option('--keep', 'keep the worktrees (retainWorkspace)')
    .option('--fresh', 'a fresh worktree per task, not a warm one from the pool (worktreePool.enabled false)')
    .option('--verifier-only', 'run the verifier once against an app already running at --url (no worktree, no app start)')
    .option('--url <url>', "the running app's URL (passed to Kane as start_url)")
    .option('--evidence <dir>', 'where to keep the verifier output (default: .elenchos/verifier-only/<time>)')
    .option('--config <file>', 'config file (default: elenchos.config.json at the repository root)')
    .option('--lock-base <ref>', 'also refuse a test lock changed since <ref> without its contract (e.g. origin/main in a pull request)')
    .option(
      '--max-kane-credits <n>',
      'per task: end it ERROR BUDGET_EXCEEDED before a verification would pass this many Kane credits',
      parsePositive,
    )
    .option('--max-minutes <n>', 'per task: end it before a step would pass this many minutes', parsePositive)
    .option(
      '--require <guards>',
      'guards every verdict must stand on, comma-separated (sandbox, processScan, windowWatch, objectStore, inputsPinned): a task whose required guard did not stand ends ERROR GUARD_MISSING',
      parseGuards,
    )
    .option('--json', 'print the verification result as JSON')
    .option('--attest <file>', 'also write a signed in-toto attestation of the --json verdict (docs/ci.md)')
    .option(
      '--attest-key <key>',
      "the Ed25519 private key for --attest (a PEM file, or env:NAME), or sigstore: keyless, with the CI's OIDC identity",
    )
    .option(
      '--sign-shard <file>',
      'with --shard and --json: sign the printed output with a key made for this verify alone, the signature to <file> (docs/ci.md#whose-shard-output-merge-takes)',
    )
    .option('--shard-key-to <file>', 'with --sign-shard: append the public key as shard-key-<i>=<key> to <file> (GitHub: "$GITHUB_OUTPUT")')
    .option('--headed', 'with --verifier-only, Playwright: show the browser')
    .option('--grep <pattern>', 'with --verifier-only, Playwright: run only the tests whose title matches')
    .option('--debug', 'with --verifier-only, Playwright: step through in the Playwright Inspector (no time limit)')
    .action(async (tasks: string[], options: VerifyCommandOptions & AttestFlags & ShardSealFlags) => {
      const iterate = { headed: options.headed === true, grep: options.grep ?? null, debug: options.debug === true };
      if (!options.verifierOnly && (iterate.headed || iterate.debug || iterate.grep !== null)) {
        throw new InputError(
          '--headed, --grep and --debug are for writing a spec against a running app: add --verifier-only --url <url> and one task',
        );
      }
      if (!options.verifierOnly) {
        const { verifyAllCommand } = await import('./verify-all.js');
        setExit(
          await withAttestation(io, options, (out) => withShardSeal(out, options, (sealed) => verifyAllCommand(tasks, options, sealed))),
        );
        return;
      }
      if (options.attest) throw new InputError('--attest signs the verdict of every task, not a --verifier-only run; drop one of them');
      if (options.require)
        throw new InputError('--require holds a verdict to its guards; a --verifier-only run runs none of them: drop one of them');
      if (options.signShard) throw new InputError('--sign-shard signs a shard of every task, not a --verifier-only run; drop one of them');
      if (tasks.length !== 1) throw new InputError(`elenchos verify --verifier-only takes exactly one task file (got ${tasks.length})`);
      if (!options.url) throw new InputError('elenchos verify --verifier-only needs --url <url> of the running app');
      const { verifyOnce } = await import('../core/verify/verify-once.js');
      const evidenceDir = path.resolve(io.cwd, options.evidence ?? verifierOnlyDir(new Date().toISOString().replace(/[:.]/g, '-')));
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
          iterate,
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
    writeHuman(io.stdout, `  ${p.status === 'passed' ? '✓' : '✗'} ${stepLabel(p.step, p.heading)}${seconds}`);
  } else if (p.kind === 'note') {
    writeHuman(io.stdout, `  ${p.message}`);
  }
}

/** The steps that did not run or did not finish, as the verifier's details list them (Playwright lists tests, not steps). */
function stepsNotRun(details: VerificationResult['details']): { index: number; heading: string; status: 'skipped' | 'unfinished' }[] {
  if (details.verifier === 'kane')
    return details.steps.flatMap((s) => (s.status === 'skipped' || s.status === 'unfinished' ? [{ ...s, status: s.status }] : []));
  if (details.verifier === 'command')
    return details.steps.flatMap((s) => (s.status === 'skipped' ? [{ index: s.step, heading: s.title ?? '', status: s.status }] : []));
  return [];
}

function printResult(io: CliIO, result: VerificationResult, evidenceDir: string): void {
  const out = io.stdout;
  for (const s of stepsNotRun(result.details)) {
    writeHuman(out, `  - step ${s.index}  ${s.heading}  (${s.status === 'skipped' ? 'did not run' : 'did not finish'})`);
  }
  for (const f of result.findings) {
    const where = f.step === null ? '' : `step ${f.step}: `;
    const codes = [f.resultCode, f.reasonCode].filter((x) => x !== null).join(' ');
    const v = f.verdict;
    const triage = v
      ? ` [${[v.family, v.category].filter(Boolean).join('/')}${v.confirmed ? ', confirmed' : ''}${v.confidence === null ? '' : `, ${v.confidence}`}]`
      : '';
    writeHuman(out, `  ! ${f.kind.replace('_', ' ')}: ${where}${v?.oneLiner ?? f.reason ?? ''}${codes ? ` (${codes})` : ''}${triage}`);
  }
  const width = Math.max(2, ...result.criteria.map((c) => c.id.length));
  writeHuman(out, 'criteria');
  for (const c of result.criteria) {
    const at = c.steps.length > 0 ? `step ${c.steps.join(', ')}` : 'no step';
    writeHuman(out, `  ${c.id.padEnd(width)}  ${c.status.padEnd(10)}  ${at.padEnd(10)}  ${c.description}${c.note ? ` — ${c.note}` : ''}`);
  }
  writeHuman(out, `${result.status}: ${result.summary}`);
  writeHuman(out, `evidence: ${evidenceDir}`);
}
