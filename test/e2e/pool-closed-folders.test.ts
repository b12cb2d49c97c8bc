// The pool's reset walks a returned worktree by folder listings (entry types from readdir, no lstat per file)
// and asks each folder alone whether it can be read and searched. The attack: an agent leaves a secret in a
// folder git cannot look into, one it may not read (0311) and one it may not search (0600), hoping the
// reset (which sees through git) keeps it in the idle slot for the next run. As root and as an ordinary
// user (setpriv): only the ordinary user is actually shut out by those modes.
// @module-tag slow
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { giveTo, runCliAs, WHO } from '../helpers/as-user.js';
import { makeProject, processesInside } from '../helpers/project.js';
import { filesHolding } from '../helpers/secret-leak.js';
import { tempDir } from '../helpers/temp.js';

const SECRET = 'sk-live-51ClosedFolderSecret7a2b';
/** The secret as the agent's shell writes it: quoted apart, so the config itself does not hold it. */
const WRITTEN = `'${SECRET.slice(0, 10)}''${SECRET.slice(10)}'`;
const OUTSIDE_TMP = '/var/tmp';

describe.each(WHO)('a worktree returned with folders git cannot look into (as %s)', (who) => {
  it('goes back to the pool without them, and the next run takes it warm', () => {
    const leave = [
      `mkdir -p unread/deeper && echo ${WRITTEN} > unread/deeper/page.html && chmod 311 unread`,
      `mkdir -p unsearched/inner && echo ${WRITTEN} > unsearched/key.txt && echo ${WRITTEN} > unsearched/inner/more.txt && chmod 600 unsearched`,
      'mkdir -p empty/nested',
    ].join(' && ');
    const parent = tempDir('elenchos-pool-closed-', OUTSIDE_TMP);
    const project = makeProject({
      parent,
      config: { agent: { type: 'command', command: '/bin/sh', args: ['-c', leave] } },
    });
    giveTo(who, parent);
    const first = runCliAs(who, ['run', 'tasks/add-task.json'], project.root, project.env);
    expect(first.stdout, first.stderr).toMatch(/cleanup +worktree \S+ returned to \.elenchos\/pool\/0/);
    const slot = path.join(project.root, '.elenchos', 'pool', '0');
    expect(readdirSync(slot).sort()).not.toContain('unread');
    expect(readdirSync(slot).sort()).not.toContain('unsearched');
    expect(readdirSync(slot).sort()).not.toContain('empty');
    expect(filesHolding(path.join(project.root, '.elenchos', 'pool'), SECRET)).toEqual([]);
    const second = runCliAs(who, ['run', 'tasks/add-task.json'], project.root, project.env);
    expect(second.stdout, second.stderr).toMatch(/worktree +warm worktree \.elenchos\/pool\/0 reset/);
    expect(processesInside(project.root)).toEqual([]);
  }, 180_000);
});
