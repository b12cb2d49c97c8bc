// Which Elenchos process a child belongs to, carried in the child's environment: `gc` finds the children
// of a dead Elenchos by it, even those that left their process group or were started outside any run.
import { processAliveSince, startTimeOf } from './process-table.js';

/** Set on every child we start (spawn.ts), inherited by everything it starts: `<pid>/<start time>` of its Elenchos. */
export const OWNER_ENV = 'ELENCHOS_OWNER';

export interface OwnerTag {
  pid: number;
  /** Start time of the owner (process-table.ts: /proc's ticks, or `e<seconds>` from ps); with the pid it names one process. */
  startTime: string;
}

let own: string | null | undefined;

/** This process's owner tag, or null where no process table can tell its start time (then no child is tagged). */
export function ownerTag(): string | null {
  if (own === undefined) {
    const startTime = startTimeOf(process.pid);
    own = startTime === null ? null : formatOwnerTag({ pid: process.pid, startTime });
  }
  return own;
}

export function formatOwnerTag(owner: OwnerTag): string {
  return `${owner.pid}/${owner.startTime}`;
}

/** Reads an owner tag; null for anything else (an empty or forged value names no owner). */
export function parseOwnerTag(value: string): OwnerTag | null {
  const match = /^(\d+)\/(e?\d+)$/.exec(value);
  return match ? { pid: Number(match[1]), startTime: match[2]! } : null;
}

/** True while the Elenchos process the tag names is alive (not a zombie, not a reused pid). */
export function ownerAlive(owner: OwnerTag): boolean {
  return processAliveSince(owner.pid, owner.startTime);
}
