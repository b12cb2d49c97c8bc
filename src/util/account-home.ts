// The home folder of the account Elenchos runs as, from the password database: what a caller's `env`
// without HOME means. Never os.homedir(), which answers with this process's HOME first.
import os from 'node:os';

/** The account's home, or null when the password database has no entry for it (a container's arbitrary uid). */
export function accountHome(): string | null {
  try {
    return os.userInfo().homedir || null;
  } catch {
    return null;
  }
}
