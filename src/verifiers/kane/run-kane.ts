// Runs `kane-cli testmd run` once: spawn in its own group, stream stdout into the evidence and the
// classifier line by line, copy what Kane left on disk, and judge every criterion.
import { mkdir } from 'node:fs/promises';
import { judgeCriteria } from '../../contract/criteria-map.js';
import { runProcess } from '../../process/spawn.js';
import { firstDuplicateKey } from '../../util/json-scan.js';
import { NdjsonReader } from '../../util/ndjson-reader.js';
import type { VerificationResult, VerifyContext } from '../types.js';
import { classifyKane, type Classification } from './classify.js';
import { decideAttemptStatus } from '../attempt-status.js';
import { copyKaneArtifacts, readEvidenceHint } from './kane-artifacts.js';
import { buildKaneInvocation } from './kane-invocation.js';
import { describeSteps, explainCriteria } from './kane-report.js';
import { KaneStreamState } from './stream-state.js';
import { parseTestMd } from './test-md.js';
import { readTestFileText } from '../../util/regular-file.js';
import { verifierFiles } from '../../evidence/layout.js';

/** Kane prints ~50 KB per step; far beyond this is a runaway, not a test. */
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;
const STDERR_LINES_KEPT = 20;
/** Kane's stderr chatter that never explains a failure. */
const NOISE = /^(Update available|evidence: |\[lock\])/;

/** The kane adapter's `verify`. */
export async function runKane(ctx: VerifyContext): Promise<VerificationResult> {
  const declared = parseTestMd(await readTestFileText(ctx.testFile)).steps.map((s) => ({
    index: s.index,
    heading: s.heading,
    optional: s.optional,
  }));
  const invocation = buildKaneInvocation(ctx);
  await mkdir(ctx.evidenceDir, { recursive: true });
  const reader = new NdjsonReader();
  const state = new KaneStreamState(ctx.onProgress);
  const stderrLines: string[] = [];
  let packPath: string | null = null;

  const outcome = await runProcess(invocation.command, invocation.args, {
    cwd: ctx.cwd,
    env: invocation.env,
    timeoutMs: ctx.timeoutMs,
    signal: ctx.signal,
    stdoutFile: verifierFiles(ctx.evidenceDir).verifierEvents,
    stderrFile: verifierFiles(ctx.evidenceDir).verifierStderr,
    maxOutputBytes: MAX_OUTPUT_BYTES,
    keepBytes: 16 * 1024,
    onStdoutLine: (line) => {
      const event = reader.read(line);
      if (!event) return;
      const repeated = firstDuplicateKey(line);
      if (repeated !== null) state.violation(`a ${String(event.type)} event repeats the key "${repeated}"`);
      state.feed(event);
    },
    onStderrLine: (line) => {
      packPath = readEvidenceHint(line) ?? packPath;
      if (line.trim() === '') return;
      stderrLines.push(line);
      if (stderrLines.length > STDERR_LINES_KEPT) stderrLines.shift();
    },
  });

  const facts = state.result();
  const artifacts = await copyKaneArtifacts({ evidenceDir: ctx.evidenceDir, cwd: ctx.cwd, testFile: ctx.testFile, packPath });
  const spawnError = outcome.spawnError
    ? `${invocation.command}: ${outcome.spawnError.code ?? outcome.spawnError.message}${outcome.spawnError.code === 'ENOENT' ? ' (is kane-cli installed and on PATH? set verifier.command otherwise)' : ''}`
    : null;
  const classification = classifyKane({
    facts,
    declared,
    eventCount: reader.stats.events,
    evidencePack: packPath,
    process: {
      exitCode: outcome.exitCode,
      signal: outcome.signal,
      timedOut: outcome.timedOut,
      aborted: outcome.aborted,
      outputCapped: outcome.outputCapped,
      lineTooLong: reader.stats.overlong > 0,
      spawnError,
      timeoutMs: ctx.timeoutMs,
      lastStderrLine: [...stderrLines].reverse().find((l) => !NOISE.test(l)) ?? null,
    },
  });
  const criteria = explainCriteria(judgeCriteria(ctx.criteria, ctx.map, classification.stepVerdicts), classification.stepNotes);
  const final = decideKaneAttempt(classification, criteria);
  return {
    status: final.status,
    summary: final.summary,
    criteria,
    findings: classification.findings,
    exitCode: outcome.exitCode,
    timedOut: outcome.timedOut,
    durationMs: outcome.durationMs,
    details: {
      verifier: 'kane',
      rule: final.rule,
      kaneVersion: facts.cliVersion,
      streamContractVersion: facts.contractVersion,
      sessionId: facts.done?.sessionId ?? null,
      shareUrl: facts.done?.shareUrl ?? null,
      creditsConsumed: facts.creditsConsumed === null ? null : Math.round(facts.creditsConsumed * 10_000) / 10_000,
      evidencePack: packPath,
      copied: { pack: artifacts.pack, output: artifacts.output },
      missing: artifacts.missing,
      lines: { ...reader.stats, skipped: reader.skipped },
      skippedLines: reader.skipped,
      counts: { events: facts.typeCounts, summary: facts.summary, errors: facts.errorCount, eventsAfterDone: facts.eventsAfterDone },
      errors: facts.errors,
      warnings: facts.warnings,
      orphans: facts.orphans,
      steps: describeSteps(declared, facts, classification.stepVerdicts),
      exitCode: outcome.exitCode,
      signal: outcome.signal,
      timedOut: outcome.timedOut,
      outputCapped: outcome.outputCapped,
      lineTooLong: reader.stats.overlong > 0,
      timeoutMs: ctx.timeoutMs,
      command: invocation.command,
      argv: invocation.redactedArgs,
      stderrTail: stderrLines,
    },
  };
}

/**
 * The shared rule (attempt-status.ts) over the judged criteria: Kane's table decides run trouble; after
 * that a confirmed FAIL wins, and a pass is an attempt PASS only if every criterion is PASS.
 */
export function decideKaneAttempt(
  c: Classification,
  criteria: VerificationResult['criteria'],
): Pick<Classification, 'status' | 'summary' | 'rule'> {
  const decision = decideAttemptStatus(criteria, c.troubles, {
    fail: c.summary,
    pass: c.summary,
    unverified: (ids) =>
      `Kane passed, but ${ids.join(', ')} ${ids.length === 1 ? 'is' : 'are'} not verified: ${criteria.find((x) => x.id === ids[0])?.note ?? ''}`,
  });
  if (decision.status === c.status) return { status: c.status, summary: decision.summary, rule: c.rule };
  const rule = decision.status === 'FAIL' ? 'product-failure' : c.status === 'FAIL' ? 'untagged-product-failure' : 'criteria-unverified';
  return { status: decision.status, summary: decision.summary, rule };
}
