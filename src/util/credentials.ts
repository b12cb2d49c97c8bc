// The environment variables that hold credentials Elenchos itself knows about: never given to an
// agent or to the app under test, always redacted from evidence.
export const CREDENTIAL_ENV: readonly string[] = ['LT_USERNAME', 'LT_ACCESS_KEY', 'KANE_CLI_ACCESS_KEY', 'ELENCHOS_SIGNING_KEY'];
