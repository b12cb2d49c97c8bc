// `elenchos merge <shard.json...>`: one summary, JUnit and exit code for a sharded CI matrix.
import path from 'node:path';
import type { Command } from 'commander';
import { writeLine, type CliIO } from '../cli-io.js';
import { withAttestation, type AttestFlags } from './attest-option.js';

export function registerMerge(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('merge')
    .description(
      'combine the `verify --json` outputs of shards 1..n into one result (exit 4 unless they are one whole verification; 0 only if every task is VERIFIED)',
    )
    .argument('<files...>', 'outputs of elenchos verify --shard i/n --json')
    .option('--json', 'print the merged { "metadata", "runs" } (itself a shard 1/1 output)')
    .option('--junit <file>', 'write the merged JUnit XML')
    .option(
      '--shard-keys <json>',
      'take a shard only if its output is exactly what its job\'s verify --sign-shard signed: a JSON object of "shard-key-<i>": "<key>" (GitHub: the verify jobs\' outputs; docs/ci.md)',
    )
    .option('--attest <file>', 'also write a signed in-toto attestation of the --json verdict (docs/ci.md)')
    .option(
      '--attest-key <key>',
      "the Ed25519 private key for --attest (a PEM file, or env:NAME), or sigstore: keyless, with the CI's OIDC identity",
    )
    .action(async (files: string[], options: MergeFlags & AttestFlags) => {
      setExit(await withAttestation(io, options, (out) => mergeCommand(files, options, out)));
    });
}

interface MergeFlags {
  json?: boolean;
  junit?: string;
  shardKeys?: string;
}

async function mergeCommand(files: string[], options: MergeFlags, io: CliIO): Promise<number> {
  const { mergeShards } = await import('../core/verify/merge.js');
  const { parseShardKeys } = await import('../core/verify/shard-seal.js');
  const { printSummary, writeReportFile } = await import('./verify-summary.js');
  const { renderJunit } = await import('../reporters/junit.js');
  const merged = await mergeShards(files, io.cwd, options.shardKeys === undefined ? undefined : parseShardKeys(options.shardKeys));
  if (options.json)
    writeLine(
      io.stdout,
      JSON.stringify(
        { metadata: merged.metadata, runs: merged.tasks.map((t) => t.record ?? { file: t.file, refused: t.refused }) },
        null,
        2,
      ),
    );
  else printSummary(io, merged.tasks, { title: 'elenchos merge', shard: null });
  if (options.junit) await writeReportFile(path.resolve(io.cwd, options.junit), renderJunit(merged.tasks));
  if (io.env.GITHUB_ACTIONS === 'true') {
    // The final job of a sharded workflow: one set of annotations and one job summary for all shards.
    const { githubAnnotations, writeJobSummary } = await import('../reporters/github.js');
    if (!options.json) for (const line of githubAnnotations(merged.tasks)) writeLine(io.stdout, line);
    if (io.env.GITHUB_STEP_SUMMARY) await writeJobSummary(io.env.GITHUB_STEP_SUMMARY, merged.tasks);
  }
  return merged.exitCode;
}
