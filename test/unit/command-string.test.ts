// Command strings (verifier.command) read as a shell reads words: a quoted path with a space is one word,
// and every place that reads the command (the run, the weakening check, preflight) sees the same words.
import { describe, expect, it } from 'vitest';
import { agentNotFoundFix } from '../../src/agents/not-found-fix.js';
import { loadConfig } from '../../src/config/load-config.js';
import { ElenchosError } from '../../src/errors.js';
import { commandExecutable, commandStringProblem, commandWords } from '../../src/process/command-string.js';
import { playwrightCommand } from '../../src/verifiers/playwright/run-playwright.js';
import { weakeningArgProblem } from '../../src/verifiers/playwright/weakening-args.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

describe('commandWords', () => {
  it.each([
    ['npx playwright', ['npx', 'playwright']],
    ['  npx \t playwright\n', ['npx', 'playwright']],
    ['node "my app.js"', ['node', 'my app.js']],
    ["node 'my app.js' --flag", ['node', 'my app.js', '--flag']],
    ['node my\\ app.js', ['node', 'my app.js']],
    ['"/opt/my tools/verify" --x="a b"', ['/opt/my tools/verify', '--x=a b']],
    ['echo "say \\"hi\\""', ['echo', 'say "hi"']],
    ['x"y z"w', ['xy zw']],
    ['a "" b', ['a', '', 'b']],
    ['\'a\\nb\' "a\\nb" a\\nb', ['a\\nb', 'a\\nb', 'anb']],
    ['"it\'s" \'say "hi"\'', ["it's", 'say "hi"']],
    ['a | b > c; d', ['a', '|', 'b', '>', 'c;', 'd']],
    ['run $HOME *.js ~', ['run', '$HOME', '*.js', '~']],
    ['', []],
    ['   ', []],
  ])('%j is %j', (text, words) => {
    expect(commandWords(text)).toEqual(words);
  });

  it('names the executable, or nothing for a blank string', () => {
    expect(commandExecutable('"/opt/my tools/kane-cli" --x')).toBe('/opt/my tools/kane-cli');
    expect(commandExecutable(' ')).toBe('');
  });

  it('says what is wrong with a quote never closed, and still reads such a string as words between spaces', () => {
    expect(commandStringProblem('node "my app.js')).toBe('has a " that is never closed: close it, or write a literal one as \\"');
    expect(commandStringProblem("node 'my app.js")).toBe("has a ' that is never closed: close it, or write a literal one as \\'");
    expect(commandStringProblem('node "my app.js"')).toBeNull();
    expect(commandWords('node "my app.js')).toEqual(['node', '"my', 'app.js']);
  });
});

describe('the places that read verifier.command', () => {
  it('the Playwright run splits a quoted executable path as one word', () => {
    expect(playwrightCommand(tempDir(), '"/opt/my tools/playwright" test-runner')).toEqual({
      command: '/opt/my tools/playwright',
      args: ['test-runner'],
    });
  });

  it('a weakening flag in quotes is still read as the flag Playwright will get', () => {
    expect(weakeningArgProblem([], 'elenchos.config.json', 'npx playwright "--last-failed"')).toMatch(
      /verifier\.command "--last-failed" is refused/,
    );
    expect(weakeningArgProblem([], 'elenchos.config.json', "npx playwright '-u'")).toMatch(/verifier\.command "-u" is refused/);
  });

  it('the agent-not-found fix keeps a quoted argument whole', () => {
    expect(agentNotFoundFix('my-agent --prompt "fix it"')).toBe(
      'agent.command is one executable and its arguments go in agent.args: set "command": "my-agent", "args": ["--prompt", "fix it"]',
    );
  });

  it('a verifier.command whose quote is never closed is bad input (exit 3), naming the file and the key', async () => {
    const root = tempDir();
    writeFiles(root, { 'elenchos.config.json': JSON.stringify({ verifier: { type: 'command', command: 'node "my verifier.js' } }) });
    const error = await loadConfig({ root }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ElenchosError);
    expect((error as ElenchosError).exitCode).toBe(3);
    expect((error as ElenchosError).details).toEqual([
      'elenchos.config.json: verifier.command: has a " that is never closed: close it, or write a literal one as \\"',
    ]);
  });
});
