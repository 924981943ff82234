/**
 * The UI on node:http (through @hono/node-server), in the process that owns
 * the store. Refuses a non-loopback address without a token.
 */
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { refusalFor, type UiAccess } from "./access/ui-access.js";
import { createUiApp, type ScopableStore } from "./ui-app.js";

export interface UiServer {
  url: string;
  close(): Promise<void>;
}

export interface UiServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  store: ScopableStore;
  access: UiAccess;
  now?: () => number;
}

export const DEFAULT_UI_HOST = "127.0.0.1";
export const DEFAULT_UI_PORT = 4000;

export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const refusal = refusalFor(options.host, options.access);
  if (refusal !== null) throw new Error(refusal);
  const app = createUiApp({ store: options.store, access: options.access, now: options.now });
  const server = await new Promise<ServerType>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, hostname: options.host, port: options.port }, () => resolve(started));
    started.once("error", reject);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
