/**
 * Starts a server (node:http, or node:net for the gRPC listener) on a host and port, turning the failures an
 * operator meets — the port is taken (4318 is also the default of the OTel Collector, Jaeger and Phoenix), or the
 * host is no name or address of this machine — into typed errors the CLI can explain.
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

/** The host cannot be listened on: no such name, or an address this machine does not have. */
export class HostUnusableError extends Error {
  constructor(
    readonly purpose: ListenerPurpose,
    readonly host: string,
    readonly code: string,
    options: { cause: unknown },
  ) {
    super(`cannot listen on ${host} (${code})`, options);
    this.name = "HostUnusableError";
  }
}

/** Errors that say the host, not the port, is what cannot be used. */
const HOST_ERRORS = new Set(["ENOTFOUND", "EAI_AGAIN", "EADDRNOTAVAIL", "EAI_NONAME"]);

/** Listens and resolves with the bound address (a free port when `port` is 0). */
export async function listen(server: Server, host: string, port: number, purpose: ListenerPurpose): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new PortInUseError(purpose, host, port, { cause: error })
          : HOST_ERRORS.has(error.code ?? "")
            ? new HostUnusableError(purpose, host, error.code!, { cause: error })
            : error,
      );
    server.once("error", fail);
    server.listen(port, host, () => {
      server.off("error", fail);
      resolve();
    });
  });
  return server.address() as AddressInfo;
}
