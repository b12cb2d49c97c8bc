// Sealing a run folder: RUNNING + `sealing` → redaction → manifest (covering the final run.json) → the
// final run.json renamed into place. A kill at any point leaves a RUNNING record that `gc` recognises.
import path from 'node:path';
import { runJsonPath } from './layout.js';
import { writeManifest } from './manifest.js';
import type { Redactor } from './redact.js';
import { checkSeals, inSealTurn, sealedListing, type AttemptSeal } from './seal-attempt.js';
import type { RunRecord } from './run-record.js';
import { jsonText, writeJsonAtomic, writeTextAtomic } from './write-json.js';

export interface SealOptions {
  /** The run's secrets: redacted from every stored file and from the record. */
  redactor: Redactor;
  /** HMAC key for the manifest (`ELENCHOS_SIGNING_KEY`). */
  signingKey?: string;
  /** Runs once the RUNNING/sealing record is on disk, before redaction (the test pause point). */
  onSealing?: () => Promise<void>;
  /** Attempts sealed when they ended (seal-attempt.ts): listed as sealed, whatever their folders hold now. */
  sealed?: readonly AttemptSeal[];
  /** Told what changed in a sealed attempt's folder since it was sealed (`attempt 1: modified: attempts/01/agent.log`). */
  onSealsBroken?: (problems: string[]) => void;
}

/**
 * Seals `runDir` with the record `finalRecord()` returns. It is asked twice, before and after the
 * manifest, so an interrupt that arrives meanwhile changes what is sealed instead of being lost.
 */
export async function sealRun(runDir: string, finalRecord: () => RunRecord, options: SealOptions): Promise<RunRecord> {
  const file = runJsonPath(runDir);
  const first = finalRecord();
  await writeJsonAtomic(file, sealingRecord(first));
  await options.onSealing?.();
  const seals = options.sealed ?? [];
  const { redactor } = options;
  // No append of Elenchos's own between the check and the listing (seal-attempt.ts).
  const sealed = await inSealTurn(async () => {
    // Before the redaction below, which could rewrite what was changed since.
    const broken = await checkSeals(seals);
    if (broken.problems.length > 0) options.onSealsBroken?.(broken.problems);
    await redactor.redactTree(runDir);
    return sealedListing(seals, broken.grown, options.signingKey);
  });
  let record = first;
  let text = '';
  for (let round = 0; round < 3; round++) {
    record = finalRecord();
    // The record itself can carry a secret (an error message quoting a value): redact its text too.
    text = redactor.redactText(jsonText(withoutSealing(record)));
    JSON.parse(text); // redaction keeps JSON valid (escaped forms are matched too); never seal a broken record
    await writeManifest(runDir, { signingKey: options.signingKey, pending: { [path.basename(file)]: text }, sealed });
    if (sameOutcome(record, finalRecord())) break;
  }
  await writeTextAtomic(file, text);
  return JSON.parse(text) as RunRecord;
}

/** The record as it stands while sealing: still RUNNING, with the outcome being sealed beside it. */
export function sealingRecord(record: RunRecord): RunRecord {
  const { state, reason, message } = record;
  if (state === 'RUNNING') return record;
  return {
    ...record,
    state: 'RUNNING',
    reason: null,
    message: null,
    finishedAt: null,
    durationMs: null,
    sealing: { state, reason, message },
  };
}

function withoutSealing(record: RunRecord): RunRecord {
  const { sealing: _sealing, ...rest } = record;
  return rest as RunRecord;
}

function sameOutcome(a: RunRecord, b: RunRecord): boolean {
  return a.state === b.state && a.reason === b.reason && a.message === b.message;
}
