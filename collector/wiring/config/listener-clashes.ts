/**
 * Two listeners of one process on the same host and port: the second cannot
 * start, and the system's "address in use" would send the operator looking
 * for another process (describe-failure.ts says "another collector may be
 * running there"), when the clash is in the settings given. Checked with the
 * settings, before anything starts, naming both settings and where each came
 * from. Port 0 asks for any free port, so it may repeat.
 */
import type { Settings } from "./settings-schema.js";
import type { SettingOrigin } from "./load-settings.js";
import { describeRelatedOrigin } from "./related-setting.js";
import { grpcPortOf } from "../../01-receive/receiver-options.js";

export interface Listener {
  /** What listens, for the message: "the OTLP/HTTP receiver". */
  name: string;
  host: string;
  port: number;
  /** Where its port was set: "flag --port", "environment variable …", "the default; … sets it". */
  portOrigin: string;
}

/** Addresses that take the port on every interface, so they clash with any host on the same port. */
const WILDCARD_HOSTS = new Set(["0.0.0.0", "::", "[::]"]);

function sameAddress(first: Listener, second: Listener): boolean {
  if (first.port === 0 || first.port !== second.port) return false;
  return first.host === second.host || WILDCARD_HOSTS.has(first.host) || WILDCARD_HOSTS.has(second.host);
}

/** One problem per pair of listeners that would take the same port on the same address; `runner` names who opens them: "ragscope serve". */
export function listenerClashes(runner: string, listeners: readonly Listener[]): string[] {
  const problems: string[] = [];
  listeners.forEach((first, index) => {
    for (const second of listeners.slice(index + 1)) {
      if (!sameAddress(first, second)) continue;
      problems.push(
        `${first.name} (${first.portOrigin}) and ${second.name} (${second.portOrigin}) are both set to port ${first.port} on ${first.host === second.host ? first.host : `${first.host} and ${second.host}`}: ${runner} cannot open one port twice; give one of them another port (0 picks a free one)`,
      );
    }
  });
  return problems;
}

/**
 * The listeners of a collector role from its settings: the OTLP/HTTP and OTLP/gRPC receivers when it
 * receives, and /metrics, /healthz and /readyz, each with where its port came from.
 */
export function collectorListeners(settings: Readonly<Settings>, origins: ReadonlyMap<string, SettingOrigin>, parts: { receiver: boolean }): Listener[] {
  const origin = (path: string) => describeRelatedOrigin(origins.get(path), path);
  const listeners: Listener[] = [];
  if (parts.receiver) {
    listeners.push({ name: "the OTLP/HTTP receiver", host: settings.receiver.host, port: settings.receiver.port, portOrigin: origin("receiver.port") });
    const grpcPort = grpcPortOf(settings.receiver);
    if (grpcPort !== null) listeners.push({ name: "the OTLP/gRPC receiver", host: settings.receiver.host, port: grpcPort, portOrigin: origin("receiver.grpcPort") });
  }
  listeners.push({ name: "/metrics, /healthz and /readyz", host: settings.observe.host, port: settings.observe.port, portOrigin: origin("observe.port") });
  return listeners;
}
