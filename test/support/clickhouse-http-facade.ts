/**
 * A ClickHouse HTTP endpoint for tests, served by the ClickHouse engine
 * in-process (chDB), so that several evaluator *processes* can write to one
 * store through ragscope's ClickHouse server mode (`--clickhouse-url`).
 *
 * Why it exists: chDB binds one data folder per process, no ClickHouse server
 * can be installed here (Debian ships 18.16, older than the schema needs), and
 * the acceptance tests need two evaluator processes whose duplicate rows
 * collapse in ONE ReplacingMergeTree. So this is the HTTP interface subset
 * `@clickhouse/client` uses (ClickHouse docs, "HTTP Interface"):
 * - `GET /ping` → `Ok.`;
 * - `POST /?query_id=…&<settings>&param_<name>=…[&query=<sql>]` with the SQL
 *   in the body, or (inserts) the statement in `query` and the rows in the
 *   body;
 * - errors: status 500, `X-ClickHouse-Exception-Code`, and the engine's own
 *   `Code: N. DB::Exception: … (TYPE)` text, which the client parses.
 * Everything else — SQL, settings such as insert_deduplication_token,
 * ReplacingMergeTree, FINAL — is the real engine. What is NOT exercised is a
 * real server's HTTP layer (compression, sessions, auth); `database`, `user`
 * and `password` are accepted and ignored (every ragscope query names its
 * database).
 *
 * `stop()` closes the port and drops open connections, so clients see a
 * refused connection exactly as with a server that went down; `start()`
 * listens again on the same port with the same data.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

interface ChdbConnectionLike {
  exec(params: { query: string; query_params?: Record<string, unknown>; clickhouse_settings?: Record<string, unknown>; query_id?: string }): Promise<{ stream: NodeJS.ReadableStream }>;
  close(): Promise<void>;
}

const notSettings = new Set(["query", "query_id", "database", "session_id", "role", "user", "password", "default_format"]);

export interface ClickHouseHttpFacade {
  readonly url: string;
  readonly port: number;
  readonly requests: { total: number; failed: number };
  isRunning(): boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

async function readBody(request: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function streamToBuffer(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

/**
 * `beforeQuery` sees each statement (with an insert's rows) before the engine runs it and may hold it: a test
 * orders the statements of several client processes with it (e.g. both checks before either insert) without
 * waiting for time to pass.
 */
export async function startClickHouseHttpFacade(options: { dataPath: string; port?: number; beforeQuery?: (sql: string) => Promise<void> }): Promise<ClickHouseHttpFacade> {
  const { createChdbConnection } = (await import("chdb/connection")) as unknown as { createChdbConnection: (options: { path: string }) => ChdbConnectionLike };
  const engine = createChdbConnection({ path: options.dataPath });
  const requests = { total: 0, failed: 0 };

  const handle = async (request: http.IncomingMessage, response: http.ServerResponse) => {
    requests.total += 1;
    const url = new URL(request.url ?? "/", "http://facade");
    if (url.pathname === "/ping") {
      response.writeHead(200, { "content-type": "text/plain" }).end("Ok.\n");
      return;
    }
    const body = await readBody(request);
    const statement = url.searchParams.get("query");
    const sql = statement === null ? body : body.length > 0 ? `${statement}\n${body}` : statement;
    const queryParams: Record<string, unknown> = {};
    const settings: Record<string, unknown> = {};
    for (const [name, value] of url.searchParams) {
      if (name.startsWith("param_")) queryParams[name.slice("param_".length)] = value;
      else if (!notSettings.has(name)) settings[name] = value;
    }
    try {
      await options.beforeQuery?.(sql);
      const result = await engine.exec({ query: sql, query_params: queryParams, clickhouse_settings: settings, query_id: url.searchParams.get("query_id") ?? undefined });
      const bytes = await streamToBuffer(result.stream);
      response.writeHead(200, {
        "content-type": "text/plain; charset=utf-8",
        "x-clickhouse-query-id": url.searchParams.get("query_id") ?? "",
        "x-clickhouse-summary": JSON.stringify({ read_rows: "0", read_bytes: "0", written_rows: "0", written_bytes: "0", total_rows_to_read: "0", result_rows: "0", result_bytes: "0", elapsed_ns: "0" }),
      });
      response.end(bytes);
    } catch (error) {
      requests.failed += 1;
      const clickhouseError = error as { code?: string; type?: string; message?: string };
      const code = clickhouseError.code ?? "1000";
      const text = clickhouseError.type ? `Code: ${code}. DB::Exception: ${clickhouseError.message ?? ""} (${clickhouseError.type})` : `Code: ${code}. DB::Exception: ${String(clickhouseError.message ?? error)} (UNKNOWN_EXCEPTION)`;
      response.writeHead(500, { "content-type": "text/plain; charset=utf-8", "x-clickhouse-exception-code": code });
      response.end(`${text}\n`);
    }
  };

  let server: http.Server | null = null;
  let port = options.port ?? 0;
  const listen = async () => {
    const created = http.createServer((request, response) => {
      handle(request, response).catch((error: unknown) => {
        response.writeHead(500).end(String(error));
      });
    });
    await new Promise<void>((resolve, reject) => {
      created.once("error", reject);
      created.listen(port, "127.0.0.1", () => {
        created.off("error", reject);
        resolve();
      });
    });
    port = (created.address() as AddressInfo).port;
    server = created;
  };
  await listen();

  const stop = async () => {
    const running = server;
    if (!running) return;
    server = null;
    await new Promise<void>((resolve) => {
      running.close(() => resolve());
      running.closeAllConnections();
    });
  };
  return {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    requests,
    isRunning: () => server !== null,
    stop,
    async start() {
      if (!server) await listen();
    },
    async close() {
      await stop();
      await engine.close();
    },
  };
}
