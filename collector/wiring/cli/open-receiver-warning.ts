/**
 * The warning an OTLP receiver (`receive`, `collect`, `serve`; HTTP and gRPC share host and tokens) prints
 * at start when it listens beyond loopback and asks no token: then anyone who
 * reaches the port writes spans, and so evaluations and Case Results
 * (SECURITY.md, threat model). It is a warning, not a refusal, because
 * running without tokens can be meant (the deployment files take an empty
 * RAGSCOPE_AUTH_TOKENS as "on purpose", behind a network policy or a proxy
 * that authenticates); the UI, which shows the data, refuses instead
 * (ui/access/ui-access.ts `refusalFor`).
 */
import { isLoopback } from "../../../ui/access/ui-access.js";

export interface ReceiverExposure {
  host: string;
  authTokens: readonly string[];
  tenantTokens: Readonly<Record<string, string>>;
}

/** The warning line, or null when the receiver is on loopback or asks for a token. */
export function openReceiverWarning(command: string, receiver: ReceiverExposure): string | null {
  if (isLoopback(receiver.host) || receiver.authTokens.length > 0 || Object.keys(receiver.tenantTokens).length > 0) return null;
  return (
    `ragscope ${command}: warning: the OTLP/HTTP receiver listens on ${receiver.host}, which is not a loopback address, and asks no token: anyone who can reach it — over OTLP/HTTP, or OTLP/gRPC on its own port — can send spans and so write results; ` +
    `set RAGSCOPE_AUTH_TOKENS=<token>[,<token>] (or RAGSCOPE_TENANT_TOKENS=tenant=<sha256 of the token>[,…] per tenant), or listen on 127.0.0.1 (--host)`
  );
}
