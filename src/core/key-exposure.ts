// Whether the agent's code can read the evidence signing key: said in the run's header and by `doctor`.
import { signingKeySource } from '../util/signing-key.js';

export interface KeyExposure {
  message: string;
  fix: string;
}

/** What exposes the key to the agent's code (same user, no sandbox), with the fix; null when nothing does. `sandbox`: the resolved mode. */
export function signingKeyExposure(env: NodeJS.ProcessEnv, sandbox: 'bwrap' | 'none'): KeyExposure | null {
  let source;
  try {
    source = signingKeySource(env);
  } catch {
    return null; // a bad key file is an input error of its own
  }
  if (source.source === 'env' && sandbox === 'none')
    return {
      message:
        "the evidence signing key (ELENCHOS_SIGNING_KEY) is readable by the agent's code: it stays in Elenchos's /proc/<pid>/environ for the whole run, and the agent runs without a sandbox",
      fix: 'keep it in a 0600 file (--signing-key-file or ELENCHOS_SIGNING_KEY_FILE) and run in the sandbox: agent.sandbox "auto" with bubblewrap installed, or "bwrap" (docs/security.md)',
    };
  if (source.source === 'env')
    return {
      message:
        "the evidence signing key is in Elenchos's environment (ELENCHOS_SIGNING_KEY), where any process of this user outside the sandbox reads it",
      fix: 'keep it in a 0600 file instead (--signing-key-file or ELENCHOS_SIGNING_KEY_FILE): the sandbox hides that file (docs/security.md)',
    };
  if (source.source === 'file' && sandbox === 'none')
    return {
      message: `the evidence signing key file ${source.file} is readable by the agent's code (the same user, no sandbox)`,
      fix: 'run in the sandbox (agent.sandbox "auto" with bubblewrap installed, or "bwrap"): it hides the key file from the agent and the app (docs/security.md)',
    };
  return null;
}
