/**
 * Waits for `condition` to hold, polling every `pollMs`, and throws naming `description` once `timeoutMs` has
 * passed: a bound on a wait for a state another process reaches (a port answering, a lock taken), never an
 * assertion on how fast it gets there.
 */
export async function eventually(description: string, condition: () => boolean | Promise<boolean>, timeoutMs: number, pollMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
