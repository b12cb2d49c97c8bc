// Doctor's word on the sandbox: whether the agent, the app and setup.command run in bubblewrap here, checked
// by the same probe a run uses (src/core/sandbox-probe.ts); without it, which of the agent's attacks stay
// open (docs/security.md#what-the-sandbox-closes) and how to get it.
import { BWRAP } from '../../agents/sandbox.js';
import type { SandboxSetting } from '../../agents/sandbox-mode.js';
import { openWithoutSandbox } from '../app/app-sandbox.js';
import { probeSandbox } from '../sandbox-probe.js';
import { fail, ok, warn, type DoctorCheck } from './doctor-check.js';

export interface SandboxCheck {
  check: DoctorCheck;
  /** What doctor's own app probe runs with: the mode a run would use ("bwrap" too when it asks for one that does not hold: the app then fails to start, as a run refuses to). */
  mode: 'bwrap' | 'none';
}

/** ok with a sandbox that holds, a warning naming the open attacks without one, a failure when "bwrap" cannot be had. */
export async function checkSandbox(setting: SandboxSetting, bwrap: string = BWRAP): Promise<SandboxCheck> {
  if (setting === 'none')
    return {
      mode: 'none',
      check: warn(
        'sandbox',
        openWithoutSandbox('run'),
        'set agent.sandbox to "auto" (the default) or "bwrap" in the config (Linux with bubblewrap; docs/security.md#the-agent-sandbox)',
      ),
    };
  const probe = await probeSandbox(bwrap);
  if (probe.holds)
    return {
      mode: 'bwrap',
      check: ok(
        'sandbox',
        `bwrap (${bwrap}): the agent, the app and setup.command each run in bubblewrap, out of reach of .elenchos/, .git and Elenchos's credentials (agent.sandbox "${setting}": ${probe.why})`,
      ),
    };
  if (setting === 'auto')
    return {
      mode: 'none',
      check: warn(
        'sandbox',
        openWithoutSandbox('run', { mode: 'none', why: `agent.sandbox is "auto" and ${probe.why}` }),
        probe.fix ?? 'see docs/security.md#the-agent-sandbox',
      ),
    };
  return {
    mode: 'bwrap',
    check: fail(
      'sandbox',
      `agent.sandbox is "bwrap" but ${probe.why}`,
      `${probe.fix ?? 'see docs/security.md#the-agent-sandbox'}, or set agent.sandbox to "auto" to run without it where it does not hold`,
    ),
  };
}
