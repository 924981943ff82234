/**
 * One `@clickhouse/client` for both stores. Embedded (the default), chDB — the
 * ClickHouse engine in-process — is plugged in through `chdb/connection`, with
 * its data under a local folder; given a URL, the same client talks to a
 * ClickHouse server over HTTP. Every query and migration is the same SQL.
 */
import { constants } from "node:fs";
import { access, mkdir } from "node:fs/promises";
import { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { ClickHouseLogLevel, createClient, parseError, type ClickHouseClient } from "@clickhouse/client";
import type { ChdbConnection } from "chdb/connection";
import { heldLock, lockHolder, StoreLockedError } from "./store-locked-error.js";
import { clickHouseErrorCode } from "./clickhouse-error-code.js";
import { ClickHouseServerError, DataFolderError, firstLine, folderProblem, printableUrl, serverProblem } from "./store-open-errors.js";

export interface ClickHouseConfig {
  /** ClickHouse server URL (http://host:8123); absent = embedded chDB. */
  url: string | null;
  username: string;
  password: string;
  database: string;
  /** Folder for chDB's data when embedded. */
  dataPath: string;
  /** Least time between two refreshes of the dashboards' rollups, ms (metric-rollups.ts); read by openClickHouseStore. */
  rollupRefreshMs?: number;
  /** Memory bound of each dashboard query, MiB, 0 = none (query-memory-bound.ts); read by openClickHouseStore. */
  queryMemoryMb?: number;
}

export interface ClickHouseConnection {
  client: ClickHouseClient;
  database: string;
  embedded: boolean;
  /** Inserts a TabSeparated body given as UTF-8 bytes (built by tab-separated-body.ts): embedded, handed to the engine as it is; over HTTP, streamed. */
  insertTabSeparated(insert: TabSeparatedInsert): Promise<void>;
  describe(): string;
  close(): Promise<void>;
}

/** A TabSeparated insert into a table. */
export interface TabSeparatedInsert {
  database: string;
  table: string;
  columns: readonly string[];
  /** Settings of this insert only (never session settings: the embedded engine's session is shared by every writer). */
  settings: Readonly<Record<string, string | number>>;
  /** The rows, UTF-8, each ended by a line feed. */
  body: Buffer;
}

/**
 * Settings of every embedded insert (a caller's own win). Without parallel parsing: a server splits a large body
 * among parser threads of its own cores, but the embedded engine's threads share the application's cores, where
 * a segmenter and parsers per insert compete with the event loop that feeds them. serve, 2,000 eight-span traces
 * (embedded-serve.bench.ts), eight runs each on two cores: 737 against 860 µs of CPU a span (medians).
 */
const EMBEDDED_INSERT_SETTINGS = { input_format_parallel_parsing: 0 } as const;

/** chDB's connection: its `.chdb` extension has the raw insert. */
type ChdbRawInsert = Pick<ChdbConnection, "chdb">;

/**
 * Embedded: the bytes go to the engine as they are (chDB's raw insert takes a
 * Buffer without copying it). Through `exec` the body had to be one string,
 * which the engine's client copied three times on the event loop (read into
 * one string, trimmed, prefixed with the statement) before the native call
 * converted it to UTF-8: a fifth of what serve allocated on its event loop.
 */
async function embeddedInsert(chdbConnection: ChdbRawInsert, insert: TabSeparatedInsert): Promise<void> {
  if (insert.body.length === 0) return;
  try {
    await chdbConnection.chdb.rawInsert({ table: `${quoteIdentifier(insert.database)}.${quoteIdentifier(insert.table)}`, columns: [...insert.columns], values: insert.body, format: "TabSeparated", settings: { ...EMBEDDED_INSERT_SETTINGS, ...insert.settings } });
  } catch (error) {
    // As chDB's client maps the errors of its other calls: a ClickHouseError with the code as `code`, as over HTTP,
    // so that callers classify both stores' failures alike (clickhouse-error-code.ts).
    const mapped = parseError(error instanceof Error ? error.message : String(error));
    mapped.cause = error;
    throw mapped;
  }
}

/** A setting's value in a statement: numbers, and words of letters, digits and `_ : . -` (tokens, enum names), nothing to escape. */
function settingLiteral(value: string | number): string {
  if (typeof value === "number") return String(value);
  if (!/^[A-Za-z0-9_:.-]*$/.test(value)) throw new Error(`invalid insert setting value "${value}": use letters, digits and _ : . - only`);
  return `'${value}'`;
}

/** The statement of a TabSeparated insert, as a server receives it (the embedded engine builds the same from the same parts). */
export function tabSeparatedInsertStatement(insert: Omit<TabSeparatedInsert, "body">): string {
  const settings = Object.entries(insert.settings).map(([name, value]) => `${quoteIdentifier(name)} = ${settingLiteral(value)}`);
  return `INSERT INTO ${quoteIdentifier(insert.database)}.${quoteIdentifier(insert.table)} (${insert.columns.map(quoteIdentifier).join(", ")})${settings.length > 0 ? ` SETTINGS ${settings.join(", ")}` : ""} FORMAT TabSeparated`;
}

/** Server: the statement over HTTP, the body streamed as it is. */
async function serverInsert(client: ClickHouseClient, insert: TabSeparatedInsert): Promise<void> {
  if (insert.body.length === 0) return;
  const result = await client.exec({ query: tabSeparatedInsertStatement(insert), values: Readable.from([insert.body]) });
  // Nothing to read; draining releases the connection's socket.
  result.stream.resume();
  await finished(result.stream);
}

/** chDB binds one data folder per process; share the connection per folder. */
const embeddedConnections = new Map<string, EmbeddedEntry>();

interface EmbeddedEntry {
  connection: ClickHouseConnection;
  chdb: ChdbRawInsert;
  users: number;
}

export interface ServerConnectionOptions {
  /** False: the client logs nothing of its own (a caller that reports failures itself, e.g. best-effort health snapshots). Default true. */
  clientLog?: boolean;
  /** Longest wait for one request, ms; default the client's (300 s). */
  requestTimeoutMs?: number;
}

/**
 * A connection to the ClickHouse server of `config.url` that asks the server nothing yet: no DDL, no ping.
 * The first request connects, so a server that is down shows only when it is used.
 */
export function clickHouseServerConnection(config: ClickHouseConfig & { url: string }, options: ServerConnectionOptions = {}): ClickHouseConnection {
  const client = createClient({
    url: config.url,
    username: config.username,
    password: config.password,
    clickhouse_settings: { wait_end_of_query: 1 },
    ...(options.requestTimeoutMs === undefined ? {} : { request_timeout: options.requestTimeoutMs }),
    ...(options.clientLog === false ? { log: { level: ClickHouseLogLevel.OFF } } : {}),
  });
  return { client, database: config.database, embedded: false, insertTabSeparated: (insert) => serverInsert(client, insert), describe: () => `ClickHouse server ${printableUrl(config.url)}, database ${config.database}`, close: () => client.close() };
}

export async function openClickHouse(config: ClickHouseConfig): Promise<ClickHouseConnection> {
  if (config.url !== null) {
    const createDatabase = `CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(config.database)}`;
    // The first request, on a client of its own that logs nothing: a server that does not answer or refuses the
    // login is said in one line naming the setting, without the client's own multi-line error log before it.
    const first = clickHouseServerConnection({ ...config, url: config.url }, { clientLog: false });
    try {
      await first.client.command({ query: createDatabase });
    } catch (error) {
      throw new ClickHouseServerError(printableUrl(config.url), config.database, serverProblem(error), firstLine(error), { cause: error });
    } finally {
      await first.close();
    }
    return clickHouseServerConnection({ ...config, url: config.url });
  }
  const existing = embeddedConnections.get(config.dataPath);
  if (existing) {
    existing.users += 1;
    await existing.connection.client.command({ query: `CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(config.database)}` });
    return sharedHandle(config, existing);
  }
  try {
    await mkdir(config.dataPath, { recursive: true });
    // Before the engine is asked: it would print its own multi-line refusal and throw "Failed to create connection".
    await access(config.dataPath, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch (error) {
    throw new DataFolderError(config.dataPath, folderProblem(error), firstLine(error), { cause: error });
  }
  // Loaded lazily: the native engine is only needed in embedded mode.
  const { createChdbConnection } = await import("chdb/connection");
  const held = heldLock(config.dataPath);
  if (held !== null) throw new StoreLockedError(config.dataPath, held, { cause: null });
  let chdbConnection: ReturnType<typeof createChdbConnection>;
  try {
    chdbConnection = createChdbConnection({ path: config.dataPath });
  } catch (error) {
    // Another process holding the folder is the one failure a user meets here; say which process it is.
    const holder = clickHouseErrorCode(error) === "CHDB_CONNECTION" ? lockHolder(config.dataPath) : null;
    if (holder !== null) throw new StoreLockedError(config.dataPath, holder, { cause: error });
    // E.g. files inside it that this user may not write: the engine printed its reason on stderr.
    throw new DataFolderError(config.dataPath, "unopenable", firstLine(error), { cause: error });
  }
  const client = createClient({ connection: chdbConnection } as Parameters<typeof createClient>[0]);
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(config.database)}` });
  const entry: EmbeddedEntry = {
    users: 1,
    chdb: chdbConnection,
    connection: {
      client,
      database: config.database,
      embedded: true,
      insertTabSeparated: (insert) => embeddedInsert(chdbConnection, insert),
      describe: () => `embedded ClickHouse engine (chDB) in ${config.dataPath}`,
      close: async () => {},
    } as ClickHouseConnection,
  };
  embeddedConnections.set(config.dataPath, entry);
  return sharedHandle(config, entry);
}

function sharedHandle(config: ClickHouseConfig, entry: EmbeddedEntry): ClickHouseConnection {
  let closed = false;
  return {
    client: entry.connection.client,
    database: config.database,
    embedded: true,
    insertTabSeparated: (insert) => embeddedInsert(entry.chdb, insert),
    describe: () => `embedded ClickHouse engine (chDB) in ${config.dataPath}, database ${config.database}`,
    async close() {
      if (closed) return;
      closed = true;
      entry.users -= 1;
      if (entry.users === 0) {
        embeddedConnections.delete(config.dataPath);
        await entry.connection.client.close();
      }
    },
  };
}

/** Database and table names come from configuration: allow only plain identifiers. */
export function quoteIdentifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`invalid ClickHouse identifier "${name}": use letters, digits and underscores, starting with a letter`);
  return name;
}
