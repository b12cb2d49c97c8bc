// `elenchos attest keygen` and `elenchos attest verify`: the keys of signed verdicts, and their check.
import type { Command } from 'commander';
import { writeHuman, writeLine, type CliIO } from '../cli-io.js';
import { ExitCode, InputError } from '../errors.js';
import type { GuardName } from '../states.js';
import { parseGuards } from './options.js';

interface AttestVerifyFlags {
  require?: GuardName[];
  key?: string;
  commit?: string;
  verdict?: string;
  certificateIdentity?: string;
  certificateOidcIssuer?: string;
  trustedRoot?: string;
}

export function registerAttest(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const attest = program.command('attest').description('sign verdicts (verify/merge --attest) and check them: keys and verification');
  attest
    .command('keygen')
    .description('write a new Ed25519 key pair: elenchos-attest.key (private, mode 0600) and elenchos-attest.pub')
    .requiredOption('--out <dir>', 'the folder to write both files into (never overwrites)')
    .action(async (options: { out: string }) => {
      const path = await import('node:path');
      const { generateKeyFiles } = await import('../attest/keys.js');
      const made = await generateKeyFiles(path.resolve(io.cwd, options.out));
      writeHuman(io.stdout, `private key: ${made.privateKeyFile} (mode 0600: a CI secret, never commit it)`);
      writeHuman(io.stdout, `public key:  ${made.publicKeyFile} (give it to whoever checks: attest verify --key)`);
      writeHuman(io.stdout, `key id:      ${made.keyId}`);
      setExit(ExitCode.VERIFIED);
    });
  attest
    .command('predicate')
    .description('print the test-result predicate of a verdict document (for a keyless signer such as actions/attest)')
    .argument('<verdict>', 'the --json output of verify or merge')
    .option('--config <file>', 'the config file, when no run of the verdict names it')
    .action(async (verdict: string, options: { config?: string }) => {
      const path = await import('node:path');
      const { readRegularFile } = await import('../util/regular-file.js');
      const { EVIDENCE_FILE_LIMIT } = await import('../util/json-file.js');
      // A verdict document is a JSON file of verify or merge: a FIFO or /dev/zero is never read, nor more than the limit.
      const bytes = await readRegularFile(path.resolve(io.cwd, verdict), { label: verdict, maxBytes: EVIDENCE_FILE_LIMIT });
      const document = bytes.toString('utf8');
      const { statementOfVerdict } = await import('../attest/write-attestation.js');
      const statement = await statementOfVerdict({ cwd: io.cwd, document, exitCode: null, configFile: options.config, env: io.env });
      writeLine(io.stdout, JSON.stringify(statement.predicate, null, 2));
      setExit(ExitCode.VERIFIED);
    });
  attest
    .command('sign')
    .description(
      "sign a verdict document another job wrote (join's --json, verify's, merge's): the attestation --attest would have written",
    )
    .argument('<verdict>', 'the --json output of join, verify or merge')
    .requiredOption('--attest <file>', 'where the attestation goes')
    .requiredOption('--attest-key <key>', 'the Ed25519 private key (a PEM file, or env:NAME), or sigstore')
    .option('--config <file>', 'the config file, when no run of the verdict names it')
    .action(async (verdict: string, options: { attest: string; attestKey: string; config?: string }) => {
      const { readFile } = await import('node:fs/promises');
      const path = await import('node:path');
      const { Writable } = await import('node:stream');
      const { withAttestation } = await import('./attest-option.js');
      const bytes = await readFile(path.resolve(io.cwd, verdict)).catch((error: NodeJS.ErrnoException) => {
        throw new InputError(
          `${verdict}: cannot read the verdict (${error.code ?? String(error)}); pass the --json output of join, verify or merge`,
        );
      });
      // PASSED only when every run is VERIFIED (the statement checks each) and, for a join, its document says
      // so of itself with no share set aside; verify's and merge's documents have no state of their own.
      const doc = JSON.parse(bytes.toString('utf8')) as { state?: unknown; problems?: unknown };
      const passed = doc.state === undefined || (doc.state === 'VERIFIED' && (!Array.isArray(doc.problems) || doc.problems.length === 0));
      const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
      await withAttestation({ ...io, stdout: quiet }, { ...options, json: true }, async (out) => {
        out.stdout.write(bytes);
        return passed ? ExitCode.VERIFIED : ExitCode.FAILED;
      });
      setExit(ExitCode.VERIFIED);
    });
  attest
    .command('verify')
    .description(
      "exit 0 only if the attestation is signed by --key, PASSED, about --commit, and its contracts and task set are the commit's",
    )
    .argument('<file>', 'the attestation (verify/merge --attest)')
    .option('--key <pub>', 'the public key (elenchos-attest.pub) of a keyed attestation')
    .option('--commit <rev>', 'the commit it must be about', 'HEAD')
    .option('--verdict <file>', 'also check that it names this verdict document (the --json output)')
    .option(
      '--require <guards>',
      'refuse unless these guards stood behind every task, comma-separated (e.g. sandbox,processScan; docs/verification.md#what-stood-behind-a-verdict)',
      parseGuards,
    )
    .option('--certificate-identity <id>', 'keyless (--attest-key sigstore): the signing workflow, exactly as its certificate names it')
    .option('--certificate-oidc-issuer <url>', 'keyless: the OIDC issuer of that identity (https://token.actions.githubusercontent.com)')
    .option(
      '--trusted-root <file>',
      "keyless: a Sigstore trusted_root.json to verify against (default: the public-good instance's, fetched)",
    )
    .action(async (file: string, options: AttestVerifyFlags) => {
      const { verifyAttestation } = await import('../attest/verify-attestation.js');
      const held = await verifyAttestation({
        cwd: io.cwd,
        env: io.env,
        file,
        signer: signerOf(options),
        commit: options.commit,
        verdictFile: options.verdict,
        require: options.require,
      });
      writeHuman(
        io.stdout,
        `attestation holds: PASSED for commit ${held.commit}, ${held.tasks.length} task(s), ${held.files} file(s) as committed, signed by ${held.signer}; guards behind every task: ${held.guards.join(', ') || 'none recorded'}`,
      );
      setExit(ExitCode.VERIFIED);
    });
}

/** `--key`, or the keyless identity and issuer (both, as cosign requires): never a mix, never half. */
function signerOf(
  options: AttestVerifyFlags,
): { keyFile: string } | { keyless: { identity: string; issuer: string; trustedRoot?: string } } {
  const identity = options.certificateIdentity;
  const issuer = options.certificateOidcIssuer;
  const keyless = identity !== undefined || issuer !== undefined || options.trustedRoot !== undefined;
  if (options.key !== undefined && keyless)
    throw new InputError('attest verify: --key checks a keyed attestation, --certificate-identity a keyless one; give one of them');
  if (options.key !== undefined) return { keyFile: options.key };
  if (!keyless)
    throw new InputError(
      "attest verify needs --key <pub> (the signer's elenchos-attest.pub) or, for a keyless attestation, --certificate-identity and --certificate-oidc-issuer",
    );
  if (identity === undefined || issuer === undefined)
    throw new InputError(
      'attest verify: a keyless attestation is checked against both --certificate-identity <workflow> and --certificate-oidc-issuer <issuer>',
    );
  return { keyless: { identity, issuer, trustedRoot: options.trustedRoot } };
}
