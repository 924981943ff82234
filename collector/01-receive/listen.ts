/**
 * Starts a server (node:http, or node:net for the gRPC listener) on a host and port, turning the one failure an
 * operator meets often — the port is taken (4318 is also the default of the
 * OTel Collector, Jaeger and Phoenix) — into a typed error the CLI can explain.
 */
import type { AddressInfo, Server } from "node:net";

/** Which of the collector's servers could not bind; the CLI names the flag and variable that move it. */
export type ListenerPurpose = "receiver" | "grpc" | "metrics";

export class PortInUseError extends Error {
  constructor(
    readonly purpose: ListenerPurpose,
    readonly host: string,
    readonly port: number,
    options: { cause: unknown },
  ) {
    super(`port ${port} on ${host} is already in use`, options);
    this.name = "PortInUseError";
  }
}

/** Listens and resolves with the bound address (a free port when `port` is 0). */
export async function listen(server: Server, host: string, port: number, purpose: ListenerPurpose): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException) => reject(error.code === "EADDRINUSE" ? new PortInUseError(purpose, host, port, { cause: error }) : error);
    server.once("error", fail);
    server.listen(port, host, () => {
      server.off("error", fail);
      resolve();
    });
  });
  return server.address() as AddressInfo;
}
