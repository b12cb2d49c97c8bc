// `elenchos mcp`: serve the MCP tools on stdin/stdout until the client goes away.
import type { Command } from 'commander';
import type { Readable, Writable } from 'node:stream';
import type { CliIO } from '../cli-io.js';

export function registerMcp(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('mcp')
    .description('a stdio MCP server: list and check tasks, read runs and evidence (read-only unless mcp.allowVerify)')
    .option('--config <file>', 'config file (default: elenchos.config.json at the repository root)')
    .action(async (options: { config?: string }) => {
      const { createMcpServer } = await import('../mcp/server.js');
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const server = createMcpServer({ cwd: io.cwd, env: io.env, configFile: options.config });
      const transport = new StdioServerTransport(io.stdin as Readable, io.stdout as Writable);
      const closed = new Promise<void>((resolve) => {
        transport.onclose = () => resolve();
        io.stdin.once('end', () => resolve());
      });
      await server.connect(transport);
      await closed;
      await server.close();
      setExit(0);
    });
}
