// `verify --sign-shard <file> --shard-key-to <file>`: the shard output signed with a key this verify makes
// and keeps in memory, its public half appended to a file the CI passes on by another way than the output
// (GitHub: $GITHUB_OUTPUT, the job's outputs). See core/verify/shard-seal.ts and docs/ci.md.
import { InputError } from '../errors.js';
import type { CliIO } from '../cli-io.js';
import { recordWrites } from './attest-option.js';

export interface ShardSealFlags {
  signShard?: string;
  shardKeyTo?: string;
  json?: boolean;
  shard?: string;
}

/** Runs the command; with --sign-shard, signs the `--json` shard output it printed once it is done. */
export async function withShardSeal(io: CliIO, flags: ShardSealFlags, run: (io: CliIO) => Promise<number>): Promise<number> {
  if (flags.signShard === undefined && flags.shardKeyTo === undefined) return run(io);
  if (flags.signShard === undefined || flags.shardKeyTo === undefined)
    throw new InputError(
      '--sign-shard <file> and --shard-key-to <file> go together: where the signature goes, and where its key is published',
    );
  if (!flags.json || flags.shard === undefined)
    throw new InputError('--sign-shard signs the --json output of one shard: add --shard <i/n> --json');
  if (flags.signShard === '' || flags.shardKeyTo === '')
    throw new InputError(
      '--sign-shard and --shard-key-to need a file each (on GitHub Actions --shard-key-to "$GITHUB_OUTPUT"; is it set?)',
    );
  const { resolve } = await import('node:path');
  const { appendFile } = await import('node:fs/promises');
  const { shardSealer } = await import('../core/verify/shard-seal.js');
  // The key's file must take a line at the end: found out now, not after a long verify.
  await appendFile(resolve(io.cwd, flags.shardKeyTo), '').catch((error: NodeJS.ErrnoException) => {
    throw new InputError(`--shard-key-to ${flags.shardKeyTo}: cannot be appended to (${error.code ?? error.message})`);
  });
  // Made now, before any code of the commit runs (its setup, its app), and never written anywhere.
  const sealer = shardSealer(resolve(io.cwd, flags.signShard), resolve(io.cwd, flags.shardKeyTo));
  const printed: Buffer[] = [];
  const code = await run({ ...io, stdout: recordWrites(io.stdout, printed) });
  await sealer.seal(Buffer.concat(printed));
  return code;
}
