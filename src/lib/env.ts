/**
 * Environment variables as webwatch reads them: given to whatever needs them (tests pass their
 * own), rather than read from `process.env` deep inside.
 */
export type Env = Readonly<Record<string, string | undefined>>;
