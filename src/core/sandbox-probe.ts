// Whether bubblewrap gives a sandbox that holds on this machine, checked rather than assumed: a tiny
// command runs inside the agent's and the app's sandbox arguments, as a run builds them, and must find
// no capability, no way to unmount what hides the checkout, /tmp or /proc, and no checkout. Asked once
// per process: the kernel does not change under a run (docs/security.md#the-agent-sandbox).
import { SYSTEM_PATH } from '../process/system-path.js';
import { constants } from 'node:fs';
import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { BWRAP, sandboxCommand } from '../agents/sandbox.js';
import { INSTALL_BWRAP, resolveSandbox, type SandboxProbe, type SandboxResolution, type SandboxSetting } from '../agents/sandbox-mode.js';
import { appSandboxCommand } from './app/app-sandbox.js';
import { workspacesDir } from '../evidence/layout.js';

/** `resolveSandbox` with the probe run (once per process) when the setting needs it. */
export async function sandboxFor(setting: SandboxSetting): Promise<SandboxResolution> {
  return resolveSandbox(setting, setting === 'none' ? null : await probeSandbox());
}

/** Why bwrap starts but does not hold, almost always: it cannot make a user namespace to drop root's powers in. */
const ALLOW_USERNS =
  'allow user namespaces (sysctl user.max_user_namespaces > 0; kernel.unprivileged_userns_clone=1 or kernel.apparmor_restrict_unprivileged_userns=0 where set; in a container, a seccomp profile that permits them)';

const probes = new Map<string, Promise<SandboxProbe>>();

/**
 * Runs the probe inside the agent's and the app's sandbox arguments, as built for a run (a checkout with
 * a marker file, a worktree inside it). `bwrap` replaces the executable (tests: a weakened one must fail).
 * Asked once per process and bwrap path.
 */
export function probeSandbox(bwrap: string = BWRAP): Promise<SandboxProbe> {
  let found = probes.get(bwrap);
  if (!found) {
    found = runProbe(bwrap);
    probes.set(bwrap, found);
  }
  return found;
}

// A shell script (sh, grep, cat and umount are everywhere bwrap is): the process's capability sets, then an
// attempt to unmount what hides the checkout, /tmp and /proc (each must fail), then whether the
// checkout's marker can be read. One `key value` line each, read below.
const PROBE_SCRIPT = `
grep -E '^(CapEff|CapPrm|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status
if command -v umount >/dev/null 2>&1; then
  for m in "$1" /tmp /proc; do umount -l "$m" 2>/dev/null && echo "unmounted: $m"; done
else
  echo "no-umount: yes"
fi
if cat "$1/marker" >/dev/null 2>&1; then echo "checkout: visible"; fi
echo "done: yes"
`;

async function runProbe(bwrap: string): Promise<SandboxProbe> {
  if (process.platform !== 'linux') return { holds: false, why: 'bubblewrap is Linux only', fix: 'run Elenchos on Linux for the sandbox' };
  if (
    !(await access(bwrap, constants.X_OK).then(
      () => true,
      () => false,
    ))
  )
    return { holds: false, why: `bubblewrap is not installed at ${bwrap}`, fix: INSTALL_BWRAP };
  // Outside /tmp when it can be: there the checkout's own tmpfs is what must hide the marker.
  const scratch = await mkdtemp(path.join(await scratchParent(), 'elenchos-sandbox-probe-'));
  try {
    const checkout = path.join(scratch, 'checkout');
    const worktree = path.join(workspacesDir(checkout), 'probe');
    await mkdir(worktree, { recursive: true });
    await writeFile(path.join(checkout, 'marker'), 'the checkout\n');
    const prompt = path.join(scratch, 'probe-prompt.txt');
    await writeFile(prompt, 'probe\n');
    const agent = sandboxCommand('/bin/sh', ['-c', PROBE_SCRIPT, 'probe', checkout], {
      worktree,
      checkout,
      promptFile: prompt,
      writableHome: [],
      home: undefined,
    });
    const app = appSandboxCommand('/bin/sh', ['-c', PROBE_SCRIPT, 'probe', checkout], { workspace: worktree, checkout, home: undefined });
    // Both at once: each is a few milliseconds of bwrap, and a run waits for them before it starts.
    const seen = await Promise.all([probeOnce(bwrap, agent.args, worktree), probeOnce(bwrap, app.args, worktree)]);
    for (const [i, who] of (['agent', 'app'] as const).entries()) {
      const found = seen[i]!;
      if (typeof found === 'string')
        return { holds: false, why: `bubblewrap does not hold here: in the ${who}'s sandbox ${found}`, fix: ALLOW_USERNS };
    }
    const umountMissing = seen.some((found) => typeof found !== 'string' && found.umountMissing);
    const root = process.getuid?.() === 0 ? 'as root, ' : '';
    const mounts = umountMissing ? 'umount not found, so unmounting was not tried' : 'its mounts cannot be undone';
    return {
      holds: true,
      why: `bubblewrap holds here, ${root}checked: no capabilities, no new privileges, ${mounts}, the checkout out of sight`,
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** One start of the probe in the sandbox: what is wrong with it, or what it could not try when it holds. */
async function probeOnce(bwrap: string, args: readonly string[], cwd: string): Promise<string | { umountMissing: boolean }> {
  // A probe is a few milliseconds; a bwrap that hangs must not hold up a run.
  const result = await execa(bwrap, args, {
    cwd,
    reject: false,
    timeout: 10_000,
    stdin: 'ignore',
    // The system's own folders: the probe's shell and tools are the machine's, never a PATH the caller could point elsewhere.
    env: { PATH: SYSTEM_PATH },
  });
  if (result.exitCode !== 0 || !/^done: yes$/m.test(result.stdout)) {
    const said = `${result.stderr}`.trim().split('\n').at(-1) ?? '';
    return `it could not start${said ? ` (${said})` : ''}`;
  }
  const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)`, 'm').exec(result.stdout)?.[1];
  for (const set of ['CapEff', 'CapPrm', 'CapBnd', 'CapAmb']) {
    const value = field(set);
    if (value === undefined || !/^0+$/.test(value)) return `${set} is ${value ?? 'unknown'}, not zero: it keeps capabilities`;
  }
  if (field('NoNewPrivs') !== '1') return 'no_new_privs is not set';
  const unmounted = /^unmounted: (.+)$/m.exec(result.stdout)?.[1];
  if (unmounted) return `it could unmount ${unmounted}`;
  if (/^checkout: visible$/m.test(result.stdout)) return 'the checkout is visible in it';
  return { umountMissing: /^no-umount: yes$/m.test(result.stdout) };
}

/** /var/tmp where it can be written (outside /tmp, which the sandbox replaces with a tmpfs of its own), else the temp folder. */
async function scratchParent(): Promise<string> {
  const varTmp = '/var/tmp';
  return access(varTmp, constants.W_OK).then(
    () => varTmp,
    () => os.tmpdir(),
  );
}
