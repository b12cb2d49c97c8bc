// app.command and app.url must agree on the port: the pure rule behind `check` and the run's preflight.
import { describe, expect, it } from 'vitest';
import { appPortProblems } from '../../src/config/app-port-rule.js';

const app = (over: { command?: string; url?: string; port?: number }) => ({
  url: 'http://127.0.0.1:{port}/',
  port: 0,
  readyTimeoutSeconds: 120,
  env: {},
  passEnv: [],
  writes: [],
  ...over,
});

describe('appPortProblems', () => {
  it('accepts {port}, $PORT and ${PORT} in the command when the URL has {port}', () => {
    for (const command of ['node app.js --port {port}', 'PORT={port} npm start', 'npm start -- --port $PORT', 'serve -l ${PORT}']) {
      expect(appPortProblems(app({ command }), 'c.json'), command).toEqual([]);
    }
  });

  it('refuses a command that ignores the port the run picks', () => {
    expect(appPortProblems(app({ command: 'npm run dev' }), 'c.json')).toEqual([
      expect.stringMatching(/^c\.json: app\.command "npm run dev" does not use \{port\}/),
    ]);
  });

  it('refuses a fixed URL while the command takes {port} from a free port', () => {
    expect(appPortProblems(app({ command: 'x --port {port}', url: 'http://localhost:3000/' }), 'c.json')).toEqual([
      expect.stringContaining('has no {port}'),
    ]);
  });

  it('with a fixed app.port: a URL on that port is fine, on another port it is refused', () => {
    expect(appPortProblems(app({ command: 'x --port {port}', url: 'http://localhost:3000/', port: 3000 }), 'c')).toEqual([]);
    expect(appPortProblems(app({ command: 'x --port {port}', url: 'http://localhost:3001/', port: 3000 }), 'c')).toEqual([
      expect.stringContaining('is on port 3001, but app.command starts the app on app.port 3000'),
    ]);
    expect(appPortProblems(app({ command: 'x --port {port}', url: 'http://localhost/', port: 80 }), 'c')).toEqual([]);
    // The command ignoring {port} with a fixed app.port may be right (it listens there): not refused.
    expect(appPortProblems(app({ command: 'node server.js', port: 3000 }), 'c')).toEqual([]);
  });

  it('nothing to compare: no command (the user starts the app), or both fixed', () => {
    expect(appPortProblems(app({}), 'c')).toEqual([]);
    expect(appPortProblems(app({ command: 'node app.js --port 3000', url: 'http://127.0.0.1:3000/' }), 'c')).toEqual([]);
  });
});
