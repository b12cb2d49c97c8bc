// The attack: an agent (or a careless config) cannot touch the locked spec, so it weakens the verify
// through `verifier.args` instead. Each flag below makes a verify pass without the spec's tests passing.
import { describe, expect, it } from 'vitest';
import { PreflightError } from '../../src/errors.js';
import { refuseWeakeningArgs, weakeningArg, weakeningArgProblem } from '../../src/verifiers/playwright/weakening-args.js';

describe('verifier.args that would weaken a Playwright verify', () => {
  it.each([
    [['--last-failed'], '--last-failed', 'failed last time'],
    [['--only-changed'], '--only-changed', 'changed'],
    [['--only-changed=HEAD~1'], '--only-changed=HEAD~1', 'changed'],
    [['--pass-with-no-tests'], '--pass-with-no-tests', 'no test'],
    [['--grep-invert', 'AC-002'], '--grep-invert', 'leaves out'],
    [['--grep-invert=AC-002'], '--grep-invert=AC-002', 'leaves out'],
    [['-G', 'AC-002'], '-G', 'leaves out'],
    [['-GAC-002'], '-GAC-002', 'leaves out'],
    [['--test-list-invert', 'skip.txt'], '--test-list-invert', 'leaves out'],
    [['--ignore-snapshots'], '--ignore-snapshots', 'toHaveScreenshot'],
    [['--update-snapshots'], '--update-snapshots', 'baselines'],
    [['--update-snapshots', '--retries=0'], '--update-snapshots', 'baselines'],
    [['--update-snapshots=all'], '--update-snapshots=all', 'baselines'],
    [['--update-snapshots', 'missing'], '--update-snapshots', 'baselines'],
    [['--update-snapshots=default'], '--update-snapshots=default', 'baselines'],
    [['--update-snapshots='], '--update-snapshots=', 'baselines'],
    [['-u'], '-u', 'baselines'],
    [['-uall'], '-uall', 'baselines'],
    [['-xu'], '-xu', 'baselines'],
    [['-u', 'changed'], '-u', 'baselines'],
    [['--retries=0', '--last-failed'], '--last-failed', 'failed last time'],
  ])('%j is refused, naming %s', (args, flag, why) => {
    expect(weakeningArg(args)).toMatchObject({ flag, why: expect.stringContaining(why) });
  });

  it.each([
    [[]],
    [['--retries=0', '--timeout=10000']],
    [['--grep', 'AC-001']],
    [['-g', 'cart']],
    [['-gu']], // -g takes "u" as its pattern
    [['--update-snapshots=none']],
    [['--update-snapshots', 'none']],
    [['-u', 'none']],
    [['-unone']],
    [['-x', '-j', '1']],
    [['--max-failures=1', '--trace', 'on']],
    [['--last-failed-file', 'x.json']],
    [['--test-list', 'tests.txt']],
  ])('%j is allowed', (args) => {
    expect(weakeningArg(args)).toBeNull();
  });

  it('reads every token: a weakening flag is refused even where it would be an option value', () => {
    expect(weakeningArg(['--grep', '--last-failed'])).toMatchObject({ flag: '--last-failed' });
  });

  it('says it in one line naming the config file, the key, the flag and why; only for Playwright', () => {
    expect(weakeningArgProblem(['--ignore-snapshots'], 'elenchos.config.json')).toBe(
      'elenchos.config.json: verifier.args "--ignore-snapshots" is refused: it skips every toHaveScreenshot/toMatchSnapshot assertion; remove it (the verdict runs every test of the spec as written)',
    );
    expect(() => refuseWeakeningArgs('playwright', { args: ['-u'] }, 'elenchos.config.json')).toThrow(PreflightError);
    expect(() => refuseWeakeningArgs('kane', { args: ['-u'] }, 'elenchos.config.json')).not.toThrow();
    expect(() =>
      refuseWeakeningArgs('playwright', { args: ['--retries=0'], command: 'npx playwright' }, 'elenchos.config.json'),
    ).not.toThrow();
  });

  it('reads the words of verifier.command too: they reach Playwright before `test`', () => {
    // `playwright test --last-failed` as the command: the flag, and "test" again as a file filter.
    expect(weakeningArgProblem([], 'elenchos.config.json', 'node_modules/.bin/playwright test --last-failed')).toBe(
      'elenchos.config.json: verifier.command "--last-failed" is refused: it runs only the tests that failed last time, so the rest are never verified; remove it (the verdict runs every test of the spec as written)',
    );
    expect(() => refuseWeakeningArgs('playwright', { args: [], command: 'npx playwright -u' }, 'elenchos.config.json')).toThrow(
      /verifier\.command "-u" is refused/,
    );
    // The executable itself is never read as a flag.
    expect(weakeningArgProblem([], 'elenchos.config.json', '-u')).toBeNull();
  });
});
