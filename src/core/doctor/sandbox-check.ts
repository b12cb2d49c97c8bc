// Doctor's word on the sandbox: with `agent.sandbox: bwrap` the agent, the app and setup.command run in
// bubblewrap; without it, which of the agent's attacks stay open (docs/security.md#what-the-sandbox-closes).
import { existsSync } from 'node:fs';
import { BWRAP } from '../../agents/sandbox.js';
import type { Config } from '../../config/config-schema.js';
import { openWithoutSandbox } from '../app/app-sandbox.js';
import { fail, ok, warn, type DoctorCheck } from './doctor-check.js';

/** ok with the sandbox, a warning naming the open attacks without it, a failure when bwrap is missing. */
export function checkSandbox(config: Pick<Config, 'agent'>, bwrap: string = BWRAP): DoctorCheck {
  if (config.agent.sandbox === 'none')
    return warn('sandbox', openWithoutSandbox('run'), 'set agent.sandbox to "bwrap" in the config (Linux; apt-get install bubblewrap)');
  if (!existsSync(bwrap))
    return fail(
      'sandbox',
      `agent.sandbox is "bwrap" but ${bwrap} is not there`,
      'install bubblewrap (apt-get install bubblewrap) or set agent.sandbox to "none"',
    );
  return ok(
    'sandbox',
    `bwrap (${bwrap}): the agent, the app and setup.command each run in bubblewrap, out of reach of .elenchos/, .git and Elenchos's credentials`,
  );
}
