/**
 * Sends OTLP/HTTP protobuf bodies to a receiver from `senders` concurrent
 * clients, each body again until it is accepted (200), as an exporter
 * retries: every other answer's status goes to `refused` (which may throw to
 * stop the run) and the body is sent again after `retryDelayMs`. Returns how
 * many answers were not 200.
 */
export async function sendUntilAccepted(
  receiverUrl: string,
  bodies: readonly Uint8Array[],
  options: { senders: number; retryDelayMs: number; refused?: (status: number) => void },
): Promise<number> {
  let next = 0;
  let refusals = 0;
  await Promise.all(
    Array.from({ length: options.senders }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        for (;;) {
          const response = await fetch(`${receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body });
          await response.arrayBuffer();
          if (response.status === 200) break;
          refusals += 1;
          options.refused?.(response.status);
          await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs));
        }
      }
    }),
  );
  return refusals;
}
