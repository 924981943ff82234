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
import { isIPv6 } from "node:net";
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
const WILDCARD_ADDRESSES = new Set(["0.0.0.0", "::"]);

/**
 * `localhost` is resolved when the listener opens, to 127.0.0.1 or ::1 depending on the machine's resolver:
 * it is taken as both, so a clash with either is reported on every machine rather than on some.
 */
const LOOPBACK_NAMES: Record<string, readonly string[]> = { localhost: ["127.0.0.1", "::1"] };

/** The addresses `host` may listen on, written one way: lower case, IPv6 without brackets and in its short form (0:0::0 is ::). */
function addressesOf(host: string): readonly string[] {
  const name = host.trim().toLowerCase().replace(/^\[(.*)\]$/, "$1");
  const loopback = LOOPBACK_NAMES[name];
  if (loopback !== undefined) return loopback;
  // A scoped address (fe80::1%eth0) is no URL host: its address part is written short, its zone kept as written.
  const [address, zone] = name.split("%", 2) as [string, string | undefined];
  if (isIPv6(address)) return [`${new URL(`http://[${address}]`).hostname.slice(1, -1)}${zone === undefined ? "" : `%${zone}`}`];
  return [name];
}

/** Why two differently written hosts are one address, for the message; empty when they are written alike. */
function sameAddressReason(first: Listener, second: Listener): string {
  if (first.host === second.host) return "";
  const wildcard = [first.host, second.host].find((host) => addressesOf(host).some((address) => WILDCARD_ADDRESSES.has(address)));
  if (wildcard !== undefined) return ` (${wildcard} takes the port on every address)`;
  const named = [first.host, second.host].find((host) => LOOPBACK_NAMES[host.trim().toLowerCase()] !== undefined);
  if (named !== undefined) return ` (${named} is ${LOOPBACK_NAMES[named.trim().toLowerCase()]!.join(" or ")}, whichever the machine resolves it to)`;
  return "";
}

function sameAddress(first: Listener, second: Listener): boolean {
  if (first.port === 0 || first.port !== second.port) return false;
  const firstAddresses = addressesOf(first.host);
  const secondAddresses = addressesOf(second.host);
  if ([...firstAddresses, ...secondAddresses].some((address) => WILDCARD_ADDRESSES.has(address))) return true;
  return firstAddresses.some((address) => secondAddresses.includes(address));
}

/** One problem per pair of listeners that would take the same port on the same address; `runner` names who opens them: "ragscope serve". */
export function listenerClashes(runner: string, listeners: readonly Listener[]): string[] {
  const problems: string[] = [];
  listeners.forEach((first, index) => {
    for (const second of listeners.slice(index + 1)) {
      if (!sameAddress(first, second)) continue;
      problems.push(
        `${first.name} (${first.portOrigin}) and ${second.name} (${second.portOrigin}) are both set to port ${first.port} on ${first.host === second.host ? first.host : `${first.host} and ${second.host}`}${sameAddressReason(first, second)}: ${runner} cannot open one port twice; give one of them another port (0 picks a free one)`,
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
