/**
 * The exit codes of every ragscope command (README "Exit codes"):
 * 0 the command did its job (the dataset is valid, the gate passed);
 * 1 it ran and the check failed (invalid dataset, gate blocked, panels failed);
 * 2 it could not decide: bad usage or input, or it could not run (port in use,
 *   store held by another process, unreadable file, unexpected error).
 */
export const ExitCode = { ok: 0, checkFailed: 1, undecided: 2 } as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];
