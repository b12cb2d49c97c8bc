// agent.sandbox "bwrap": what a hostile agent can reach with and without it (needs /usr/bin/bwrap: CI installs it).
// @module-tag slow
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { giveTo, runCliAs, WHO, type Who } from '../helpers/as-user.js';
import { checkoutFingerprint, FIXTURES, makeProject } from '../helpers/project.js';
import { gitSync } from '../helpers/temp.js';

const PROBE = path.join(FIXTURES, 'agents/probe-agent.js');

function probe(sandbox: 'none' | 'bwrap', who: Who = 'root') {
  // The probe is committed into the project: the sandbox gives the agent a private /tmp, where the
  // test's own fixtures may live (a clone under /tmp), while the worktree is always visible.
  const p = makeProject({ files: { 'probe-agent.js': readFileSync(PROBE, 'utf8') } });
  // The checkout's path reaches the agent through agent.env, as an agent could guess it anyway.
  const config = path.join(p.root, 'elenchos.config.json');
  const settings = JSON.parse(readFileSync(config, 'utf8')) as Record<string, unknown>;
  settings.agent = {
    type: 'command',
    command: process.execPath,
    args: ['probe-agent.js'],
    timeoutSeconds: 30,
    sandbox,
    env: { PROBE_CHECKOUT: p.root },
  };
  writeFileSync(config, JSON.stringify(settings));
  gitSync(p.root, 'commit', '-qam', `sandbox ${sandbox}`);
  const credentials = path.join(p.home, '.testmuai/kaneai/profiles/default/prod');
  mkdirSync(credentials, { recursive: true });
  writeFileSync(path.join(credentials, 'credentials'), 'access_key=kane-secret-value\n');
  giveTo(who, p.root, p.home);
  const before = checkoutFingerprint(p.root);
  const run = runCliAs(who, ['run', 'tasks/add-task.json'], p.root, { ...p.env, PROBE_SECRET_TOKEN: 'caller-secret-token-value' });
  const line = /\[agent\] PROBE (\{.*\})/.exec(run.stdout)?.[1];
  expect(line, run.stdout + run.stderr).toBeDefined();
  return { run, result: JSON.parse(line!) as Record<string, boolean | number>, before, after: checkoutFingerprint(p.root), root: p.root };
}

describe.skipIf(!existsSync('/usr/bin/bwrap'))('agent sandbox', () => {
  it('without it, the agent reads the parent environment and writes the checkout (what the sandbox is for)', () => {
    const { result } = probe('none');
    expect(result).toMatchObject({
      environLeak: true,
      readCheckout: true,
      writeCheckout: true,
      listEvidence: true,
      readKaneCredentials: true,
      plantHook: true,
    });
  }, 120_000);

  it.each(WHO)(
    'with bwrap, as %s, the agent sees no other process, no checkout, no verifier credentials, and still does its work',
    (who) => {
      const { run, result, before, after, root } = probe('bwrap', who);
      expect(result).toMatchObject({
        environLeak: false,
        readCheckout: false,
        writeCheckout: false,
        listEvidence: false,
        readKaneCredentials: false,
        plantHook: false,
        writeWorktree: true,
        gitCommit: true,
      });
      expect(result.processes).toBeLessThan(5);
      expect(after).toEqual(before);
      expect(existsSync(path.join(root, 'pwned.txt'))).toBe(false);
      expect(run.code, run.stdout + run.stderr).toBe(0);
    },
    120_000,
  );
});
