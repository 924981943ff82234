/**
 * The longest delay Node's timers take: 2^31 − 1 ms, ~24.8 days. Past it `setTimeout` waits 1 ms instead, with only
 * a TimeoutOverflowWarning, so a timeout set "very long" would end everything at once. Every duration a setting or a
 * flag gives a timer is bounded by it (collector-config.ts, the commands' flags in cli/main.ts).
 */
export const MOST_TIMER_MILLISECONDS = 2_147_483_647;

/** Why a duration is bounded, as the flags' and the settings' messages say it. */
export const TIMER_LIMIT_REASON = "~24.8 days, the longest delay Node's timers take";
