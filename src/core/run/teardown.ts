// A stack of teardowns: registered before each step runs, run in reverse on every exit path.

export class Teardowns {
  private readonly stack: { name: string; fn: () => Promise<void> | void }[] = [];

  /** Registers `fn` to run at teardown; returns a function that runs it early (once) and unregisters it. */
  add(name: string, fn: () => Promise<void> | void): () => Promise<void> {
    const entry = { name, fn };
    this.stack.push(entry);
    return async () => {
      const index = this.stack.indexOf(entry);
      if (index < 0) return;
      this.stack.splice(index, 1);
      await fn();
    };
  }

  /** Runs every teardown in reverse order; one failing never stops the rest. Returns the failures. */
  async runAll(): Promise<string[]> {
    const failures: string[] = [];
    while (this.stack.length > 0) {
      const entry = this.stack.pop()!;
      try {
        await entry.fn();
      } catch (error) {
        failures.push(`${entry.name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return failures;
  }
}
