// Untrusted text (titles, descriptions, agent and app output, file names) made safe for a terminal line.

/** Longest line of human output; the rest is cut and counted, so a 10 MB title cannot flood a CI log. */
export const MAX_SHOWN_LENGTH = 2000;

// C0 controls but the newline, DEL, C1 controls (0x9b is a one-byte CSI for some terminals), and the
// bidirectional overrides that can make a line read differently from what it is ("Trojan Source").
// Matching control characters is the point of these two patterns.
/* eslint-disable no-control-regex */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_OR_NEWLINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/* eslint-enable no-control-regex */
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const escapeChar = (ch: string): string => NAMED[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Escapes every control character except the newline as `\uXXXX`, which is also how JSON writes it,
 * so text that is already JSON keeps its meaning. Used for every line Elenchos prints.
 */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

/** One line of human output: every control character escaped (newlines too) and cut at `max` characters. */
export function showText(text: string, max = MAX_SHOWN_LENGTH): string {
  const cut = text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
  return cut.replace(UNSAFE_OR_NEWLINE, escapeChar);
}
