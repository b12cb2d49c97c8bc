import { commandWords } from '../process/command-string.js';

/**
 * The fix to print when an agent's executable is not found. `agent.command` is one executable (its
 * arguments go in `agent.args`), unlike `app.command`, which is a shell line: a command with spaces is
 * almost always a shell line written into the wrong key, so say how to split it.
 */
export function agentNotFoundFix(command: string): string {
  const words = commandWords(command);
  if (words.length < 2) return 'install it or set agent.command';
  const args = words
    .slice(1)
    .map((word) => JSON.stringify(word))
    .join(', ');
  return `agent.command is one executable and its arguments go in agent.args: set "command": ${JSON.stringify(words[0])}, "args": [${args}]`;
}
