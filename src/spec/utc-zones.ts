/**
 * Zones that are UTC all year round, as IANA spells them: checked, scheduled and formatted
 * without ICU's zone data, whose first use costs a command 15-40 ms. A module of its own so
 * that the store, which schedules, does not load the zone checks and their suggestions.
 */
export const UTC_ZONES: ReadonlySet<string> = new Set(['UTC', 'Etc/UTC', 'Etc/UCT', 'UCT', 'Etc/GMT', 'GMT', 'Etc/Zulu', 'Zulu', 'Universal', 'Etc/Universal']);
