// Whether the agent, its app and setup.command run in bubblewrap: `agent.sandbox` ("auto", "bwrap", "none")
// against what the sandbox probe found (src/core/sandbox-probe.ts). A sandbox that does not hold is no
// sandbox: "auto" runs without one and says why; "bwrap" refuses to start. Recorded with each attempt
// (docs/security.md#the-agent-sandbox).
import { PreflightError } from '../errors.js';

/** `agent.sandbox` as configured. */
export type SandboxSetting = 'auto' | 'bwrap' | 'none';

/** What the probe found: whether bubblewrap gives a sandbox that holds here, and in words why (or why not). */
export interface SandboxProbe {
  holds: boolean;
  why: string;
  /** What to do when it does not hold (install bubblewrap, allow user namespaces). */
  fix?: string;
}

/** The sandbox a run uses, and why: what each attempt records. */
export interface SandboxResolution {
  mode: 'bwrap' | 'none';
  why: string;
}

/** Where bubblewrap comes from, for the messages that say how to get it. */
export const INSTALL_BWRAP = 'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)';

/**
 * The mode `setting` gives with what `probe` found (null: not probed, which only "none" needs). "auto"
 * falls back to none with the probe's reason; "bwrap" that does not hold is bad input (exit 3): asked for
 * a sandbox, a run never goes on without one.
 */
export function resolveSandbox(setting: SandboxSetting, probe: SandboxProbe | null): SandboxResolution {
  if (setting === 'none') return { mode: 'none', why: 'agent.sandbox is "none"' };
  if (!probe) throw new Error(`agent.sandbox "${setting}" needs the sandbox probe`);
  if (probe.holds) return { mode: 'bwrap', why: probe.why };
  if (setting === 'auto') return { mode: 'none', why: `agent.sandbox is "auto" and ${probe.why}` };
  throw new PreflightError(
    'SANDBOX_UNAVAILABLE',
    `agent.sandbox is "bwrap" but ${probe.why}; ${probe.fix ?? 'see docs/security.md#the-agent-sandbox'}, or set agent.sandbox to "auto" to run without it where it does not hold`,
  );
}

/**
 * Whether a resolved `agent.sandbox` puts the process in bubblewrap. "auto" here is a bug, not a mode:
 * preflight resolves it (src/core/run/preflight.ts) before anything starts, and a process must never run
 * unsandboxed because nobody asked.
 */
export function sandboxOn(agent: { sandbox: SandboxSetting }): boolean {
  if (agent.sandbox === 'auto') throw new Error('agent.sandbox "auto" was not resolved before a process started');
  return agent.sandbox === 'bwrap';
}
