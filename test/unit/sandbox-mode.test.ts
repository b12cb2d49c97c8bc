// agent.sandbox resolved against the probe (src/agents/sandbox-mode.ts, src/core/sandbox-probe.ts): the probe
// runs in the real sandbox arguments and must catch a bubblewrap that does not hold (run as root, a weakened
// bwrap keeps every capability, as every sandbox did before the capability drop).
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSandbox, sandboxOn } from '../../src/agents/sandbox-mode.js';
import { probeSandbox } from '../../src/core/sandbox-probe.js';
import { PreflightError } from '../../src/errors.js';
import { tempDir } from '../helpers/temp.js';

const holds = { holds: true, why: 'bubblewrap holds here' };
const missing = { holds: false, why: 'bubblewrap is not installed at /usr/bin/bwrap', fix: 'install bubblewrap' };
const asRoot = process.getuid?.() === 0;

describe('resolveSandbox', () => {
  it('"auto" is bwrap where it holds, none with the probe\'s reason where not; "none" needs no probe', () => {
    expect(resolveSandbox('auto', holds)).toEqual({ mode: 'bwrap', why: 'bubblewrap holds here' });
    expect(resolveSandbox('auto', missing)).toEqual({
      mode: 'none',
      why: 'agent.sandbox is "auto" and bubblewrap is not installed at /usr/bin/bwrap',
    });
    expect(resolveSandbox('none', null)).toEqual({ mode: 'none', why: 'agent.sandbox is "none"' });
    expect(resolveSandbox('bwrap', holds).mode).toBe('bwrap');
  });

  it('"bwrap" that does not hold is refused with the fix, never run without a sandbox', () => {
    expect(() => resolveSandbox('bwrap', missing)).toThrow(PreflightError);
    expect(() => resolveSandbox('bwrap', missing)).toThrow(
      'agent.sandbox is "bwrap" but bubblewrap is not installed at /usr/bin/bwrap; install bubblewrap, or set agent.sandbox to "auto"',
    );
  });

  it('an unresolved "auto" never reaches a process: sandboxOn refuses it', () => {
    expect(sandboxOn({ sandbox: 'bwrap' })).toBe(true);
    expect(sandboxOn({ sandbox: 'none' })).toBe(false);
    expect(() => sandboxOn({ sandbox: 'auto' })).toThrow(/not resolved/);
  });
});

/** A bwrap that leaves out the flags of `drop` (each with its number of values; only where its value ends with `match`) before running the real one. */
function weakened(name: string, drop: Record<string, number>, match?: string): string {
  const file = path.join(tempDir('elenchos-weak-bwrap-', '/var/tmp'), name);
  writeFileSync(
    file,
    `#!${process.execPath}
const { spawnSync } = require('node:child_process');
const drop = ${JSON.stringify(drop)};
const match = ${JSON.stringify(match ?? null)};
const args = process.argv.slice(2);
const kept = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--') { kept.push(...args.slice(i)); break; }
  if (args[i] in drop && (match === null || String(args[i + 1]).endsWith(match))) { i += drop[args[i]]; continue; }
  kept.push(args[i]);
}
process.exit(spawnSync('/usr/bin/bwrap', kept, { stdio: 'inherit' }).status ?? 1);
`,
  );
  chmodSync(file, 0o755);
  chmodSync(path.dirname(file), 0o755);
  return file;
}

describe.skipIf(!existsSync('/usr/bin/bwrap'))('the sandbox probe', () => {
  it('finds that bubblewrap holds here: no capabilities, no way to unmount what hides the checkout', async () => {
    const probe = await probeSandbox();
    expect(probe, probe.why).toMatchObject({ holds: true });
    expect(probe.why).toMatch(/no capabilities, no new privileges, its mounts cannot be undone, the checkout out of sight/);
  });

  it.skipIf(!asRoot)(
    'as root, a bwrap without its own user namespace and the capability drop does not hold (every sandbox before)',
    async () => {
      const probe = await probeSandbox(weakened('no-userns', { '--unshare-user': 0, '--cap-drop': 1 }));
      expect(probe.holds).toBe(false);
      expect(probe.why).toMatch(
        /^bubblewrap does not hold here: in the agent's sandbox CapEff is 0*1f+e*f+, not zero: it keeps capabilities$/,
      );
      expect(probe.fix).toMatch(/allow user namespaces/);
    },
  );

  it('a sandbox that left the checkout visible does not hold', async () => {
    const probe = await probeSandbox(weakened('no-checkout-tmpfs', { '--tmpfs': 1, '--remount-ro': 1 }, '/checkout'));
    expect(probe).toMatchObject({
      holds: false,
      why: "bubblewrap does not hold here: in the agent's sandbox the checkout is visible in it",
    });
  });

  it('a bwrap that cannot start does not hold, and says what it said', async () => {
    const broken = weakened('refuses', {});
    writeFileSync(broken, '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n');
    const probe = await probeSandbox(broken);
    expect(probe).toMatchObject({
      holds: false,
      why: "bubblewrap does not hold here: in the agent's sandbox it could not start (bwrap: setting up uid map: Permission denied)",
    });
  });

  it('a missing bwrap is "not installed", with how to install it', async () => {
    expect(await probeSandbox('/nonexistent/bwrap')).toMatchObject({
      holds: false,
      why: 'bubblewrap is not installed at /nonexistent/bwrap',
      fix: expect.stringMatching(/apt-get install bubblewrap/),
    });
  });
});
