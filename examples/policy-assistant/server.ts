/**
 * Runnable policy-assistant service:
 *
 *   npx tsx examples/policy-assistant/server.ts
 *   curl -s localhost:8787/ask -H 'content-type: application/json' -d '{"question":"退款审核通过后多久能到账？"}'
 *
 * setupRagscope() runs first, so every request exports its trace to the
 * collector (RAGSCOPE_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT, default
 * http://127.0.0.1:4318). PORT and HOST choose where the service listens
 * (default 127.0.0.1:8787).
 */
import { setupRagscope } from "../../instrumentation/index.js";
import { createPolicyAssistant } from "./create-policy-assistant.js";
import { createAskServer } from "./http/ask-server.js";

const ragscope = setupRagscope({ serviceName: process.env.OTEL_SERVICE_NAME ?? "policy-assistant" });
const assistant = createPolicyAssistant();
const server = createAskServer(assistant);

const port = Number(process.env.PORT ?? 8787);
const host = process.env.HOST ?? "127.0.0.1";
server.listen(port, host, () => {
  console.log(`policy-assistant listening on http://${host}:${port} (POST /ask)`);
});

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: closing; flushing spans`);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  try {
    await ragscope.shutdown();
  } catch (error) {
    // Spans that could not be delivered are lost: say so, and exit non-zero.
    console.error(`could not flush spans to the collector: ${(error as Error).message}`);
    process.exit(1);
  }
  process.exit(0);
}
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));
