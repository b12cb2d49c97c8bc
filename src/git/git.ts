// The only place that runs git: a small promise wrapper with readable failures.
import { execFile } from 'node:child_process';
import { ElenchosError } from '../errors.js';

export class GitError extends ElenchosError {
  override readonly code = 'ELENCHOS_GIT';
}

export interface GitOptions {
  cwd: string;
  /** Return raw bytes (for `-z` output and blobs). */
  buffer?: boolean;
  input?: string;
  env?: NodeJS.ProcessEnv;
}

/** Runs `git args` in `cwd` and returns stdout; throws GitError with git's stderr on failure. */
export function git(args: readonly string[], options: GitOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      {
        cwd: options.cwd,
        env: { ...(options.env ?? process.env), GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
        maxBuffer: 512 * 1024 * 1024,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        if (error) {
          const detail = String(stderr).trim().split('\n').slice(-3).join(' ') || error.message;
          reject(new GitError(`git ${args.slice(0, 3).join(' ')} failed in ${options.cwd}: ${detail}`, { cause: error }));
        } else {
          resolve(stdout);
        }
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** The repository's top level containing `cwd`, or null outside a repository. */
export async function findRepoRoot(cwd: string): Promise<string | null> {
  try {
    return (await git(['rev-parse', '--show-toplevel'], { cwd })).trim();
  } catch {
    return null;
  }
}
