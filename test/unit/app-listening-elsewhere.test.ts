// An app that never became ready but whose log says where it listens: the message names that URL.
import { describe, expect, it } from 'vitest';
import { listeningElsewhere } from '../../src/core/app/app.js';

// What `pnpm run dev -- --port 44583` printed: pnpm passed the `--` on, and Vite took it as the end of its options.
const VITE_LOG = `> app@0.0.0 dev /w
> vite -- --port 44583

  VITE v8.4.1  ready in 801 ms

  \u001b[32m➜\u001b[39m  \u001b[1mLocal\u001b[22m:   \u001b[36mhttp://localhost:\u001b[1m5173\u001b[22m/\u001b[39m
  ➜  Network: use --host to expose
`;

describe('listeningElsewhere', () => {
  it('names the URL a dev server says it listens at, on another port than the one it was given', () => {
    expect(listeningElsewhere(VITE_LOG, 'http://127.0.0.1:44583/')).toBe('http://localhost:5173/');
  });

  it('is null when the log names the port the app was given, or no loopback URL at all', () => {
    expect(listeningElsewhere('Local: http://localhost:44583/\n', 'http://127.0.0.1:44583/')).toBeNull();
    expect(listeningElsewhere('listening on http://example.com:8080/ (docs)\n', 'http://127.0.0.1:44583/')).toBeNull();
    expect(listeningElsewhere('', 'http://127.0.0.1:44583/')).toBeNull();
  });
});
