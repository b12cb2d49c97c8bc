// Run ids: readable, time-sortable and unique, e.g. `20261130-045612-123-a1b2c3`.
import { randomBytes } from 'node:crypto';

export const RUN_ID_PATTERN = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-(\d{3})-([0-9a-f]{6})$/;

const SUFFIX_SPACE = 0x1000000;
let last: { stamp: string; suffix: number } | undefined;

/** A new run id for `now` (UTC, milliseconds, 6 hex digits); lexical order is time order. */
export function newRunId(now: Date = new Date()): string {
  const stamp = formatStamp(now);
  let suffix = randomBytes(3).readUIntBE(0, 3);
  // Within one millisecond of one process, count up from the last suffix (as ULIDs do): ids stay
  // unique and keep their creation order; across processes the random start makes a clash unlikely.
  if (last && last.stamp === stamp) {
    if (last.suffix + 1 >= SUFFIX_SPACE) return newRunId(new Date(now.getTime() + 1));
    suffix = last.suffix + 1;
  }
  last = { stamp, suffix };
  return `${stamp}-${suffix.toString(16).padStart(6, '0')}`;
}

function formatStamp(date: Date): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return (
    `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}-` +
    `${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}-${pad(date.getUTCMilliseconds(), 3)}`
  );
}
