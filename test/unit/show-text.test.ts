import { describe, expect, it } from 'vitest';
import { escapeControls, showText } from '../../src/cli-io.js';

describe('showText / escapeControls', () => {
  it('escapes ANSI, OSC, C1 and bidi controls so a terminal shows them instead of obeying them', () => {
    expect(showText('a\u001b[31mb\u0007\u009b2J\u202eevil\r\n')).toBe('a\\u001b[31mb\\u0007\\u009b2J\\u202eevil\\r\\n');
    expect(escapeControls('line 1\nline\u001b2\ttab')).toBe('line 1\nline\\u001b2\\ttab');
  });

  it('keeps JSON meaning: escaping what JSON.stringify leaves raw gives the same value back', () => {
    const value = { s: 'x\u009by\u202ez\u007f' };
    expect(JSON.parse(escapeControls(JSON.stringify(value)))).toEqual(value);
  });

  it('cuts long text and says how much was left out', () => {
    const shown = showText('t'.repeat(10_000_000));
    expect(shown.length).toBeLessThan(2100);
    expect(shown.endsWith('… (9998000 more characters)')).toBe(true);
    expect(showText('short')).toBe('short');
  });
});
