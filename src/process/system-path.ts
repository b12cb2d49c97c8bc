// The PATH for the machine's own tools (ps, lsof, the sandbox probe's shell): system folders only, never a
// caller's PATH, which a user or an unsandboxed agent can put a folder of its own at the front of.

/** The system's own binary folders, in the usual order. */
export const SYSTEM_PATH = '/usr/bin:/bin:/usr/sbin:/sbin';
