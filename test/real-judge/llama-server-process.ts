/**
 * llama.cpp's `llama-server` for the real-server tier (test/real-judge/): the
 * binary and model come from prepare-llama-server.sh (idempotent and cached,
 * run here too so a test file can be run on its own; .ci/run runs it first),
 * the server listens on 127.0.0.1 on a free port, and `stop()` ends it.
 *
 * A recording proxy sits between the client under test and the server, so the
 * tests can compare what ragscope recorded (usage, forms) with what the server
 * actually answered.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createServer as createHttpServer, request as httpRequest } from "node:http";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const prepareScript = path.join(path.dirname(fileURLToPath(import.meta.url)), "prepare-llama-server.sh");

export interface PreparedLlamaServer {
  binary: string;
  model: string;
}

/** Runs the prepare script (a no-op when cached) and reads the paths it prints. */
export async function prepareLlamaServer(): Promise<PreparedLlamaServer> {
  const { stdout } = await promisify(execFile)("bash", [prepareScript], { maxBuffer: 16 * 1024 * 1024 });
  const binary = /^llama-server: (.+)$/m.exec(stdout)?.[1];
  const model = /^model: (.+)$/m.exec(stdout)?.[1];
  if (binary === undefined || model === undefined) throw new Error(`${prepareScript} did not print the llama-server and model paths:\n${stdout}`);
  return { binary, model };
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface RunningLlamaServer {
  /** The server itself, ending in /v1. */
  readonly baseUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts the server and waits until /health answers 200 (the model is loaded).
 * `extraArguments` e.g. ["--embeddings", "--pooling", "mean"].
 */
export async function startLlamaServer(prepared: PreparedLlamaServer, extraArguments: readonly string[] = [], readyWithinMs = 300_000): Promise<RunningLlamaServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(prepared.binary, ["-m", prepared.model, "--host", "127.0.0.1", "--port", String(port), "-c", "4096", "-t", "2", "--no-webui", ...extraArguments], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  const keep = (part: Buffer) => {
    log = (log + part.toString()).slice(-4_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
  });

  const stop = async () => {
    if (exitCode !== undefined) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  };

  const deadline = Date.now() + readyWithinMs;
  for (;;) {
    if (exitCode !== undefined) throw new Error(`llama-server exited with ${exitCode} before it was ready:\n${log}`);
    const status = await fetch(`http://127.0.0.1:${port}/health`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`llama-server not ready on 127.0.0.1:${port} within ${readyWithinMs} ms:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { baseUrl: `http://127.0.0.1:${port}/v1`, stop };
}

export interface ProxiedExchange {
  path: string;
  request: Record<string, unknown>;
  status: number;
  response: unknown;
}

export interface RecordingProxy {
  readonly baseUrl: string;
  readonly exchanges: ProxiedExchange[];
  close(): Promise<void>;
}

/** Forwards every POST to `upstreamBaseUrl` and records both bodies. */
export async function startRecordingProxy(upstreamBaseUrl: string): Promise<RecordingProxy> {
  const exchanges: ProxiedExchange[] = [];
  const upstream = new URL(upstreamBaseUrl);
  const server = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      // node:http, not fetch: fetch gives up on response headers after 300 s, and a judge call
      // on a loaded 2-core machine can take longer; the client under test has its own timeout.
      const forwarded = httpRequest(
        { host: upstream.hostname, port: upstream.port, path: request.url ?? "", method: request.method ?? "POST", headers: { "content-type": "application/json", authorization: request.headers.authorization ?? "" } },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on("data", (part: Buffer) => parts.push(part));
          answer.on("end", () => {
            const body = Buffer.concat(parts).toString("utf8");
            let parsed: unknown = body;
            try {
              parsed = JSON.parse(body);
            } catch {
              // kept as text
            }
            exchanges.push({ path: request.url ?? "", request: JSON.parse(text) as Record<string, unknown>, status: answer.statusCode ?? 0, response: parsed });
            response.writeHead(answer.statusCode ?? 502, { "content-type": answer.headers["content-type"] ?? "application/json" });
            response.end(body);
          });
        },
      );
      forwarded.on("error", (error) => {
        if (response.headersSent) return;
        response.writeHead(502, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: `recording proxy: ${error.message}` } }));
      });
      forwarded.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${upstream.pathname}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
