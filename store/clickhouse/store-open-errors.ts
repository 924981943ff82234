/**
 * The failures a user meets when the configured store cannot be opened, as
 * types the command line turns into one line naming the setting to change
 * (collector/wiring/cli/describe-failure.ts): a ClickHouse server that does
 * not answer or refuses the login, and an embedded data folder that is a
 * file, or that this user may not write.
 */
import { clickHouseErrorCode } from "./clickhouse-error-code.js";

export type ServerProblem = "unreachable" | "login refused" | "not permitted" | "failed";

/** The ClickHouse server of RAGSCOPE_CLICKHOUSE_URL could not be used. */
export class ClickHouseServerError extends Error {
  constructor(
    /** The URL with any password in it masked. */
    readonly url: string,
    readonly database: string,
    readonly problem: ServerProblem,
    /** The first line of what the client or the server said. */
    readonly detail: string,
    options: { cause: unknown },
  ) {
    super(`ClickHouse server ${url}: ${problem}: ${detail}`, options);
    this.name = "ClickHouseServerError";
  }
}

export type FolderProblem = "not a folder" | "not permitted" | "unopenable";

/** The embedded engine's data folder (RAGSCOPE_DATA_DIR, --data-dir) could not be used. */
export class DataFolderError extends Error {
  constructor(
    readonly dataPath: string,
    readonly problem: FolderProblem,
    readonly detail: string,
    options: { cause: unknown },
  ) {
    super(`data folder ${dataPath}: ${problem}: ${detail}`, options);
    this.name = "DataFolderError";
  }
}

const NETWORK_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "EPIPE", "ECONNABORTED", "UND_ERR_CONNECT_TIMEOUT"]);
/** AUTHENTICATION_FAILED, UNKNOWN_USER, REQUIRED_PASSWORD, WRONG_PASSWORD. */
const LOGIN_CODES = new Set(["516", "192", "194", "193"]);
/** ACCESS_DENIED, and NOT_ENOUGH_PRIVILEGES of older servers. */
const PERMISSION_CODES = new Set(["497", "241"]);

export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.trim();
}

/** The URL as it may be printed: a password in it masked. */
export function printableUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === "") return url;
    parsed.password = "********";
    return parsed.toString();
  } catch {
    return url;
  }
}

/** What kind of failure a first request to a ClickHouse server met. */
export function serverProblem(error: unknown): ServerProblem {
  const code = clickHouseErrorCode(error);
  if (code !== null && NETWORK_CODES.has(code)) return "unreachable";
  if (code !== null && LOGIN_CODES.has(code)) return "login refused";
  if (code !== null && PERMISSION_CODES.has(code)) return "not permitted";
  // The client's own timeout carries no code.
  if (/^Timeout error\b|socket hang up|getaddrinfo/i.test(firstLine(error))) return "unreachable";
  return "failed";
}

/** What kind of failure creating or opening a data folder met, by the file system's code. */
export function folderProblem(error: unknown): FolderProblem {
  const code = clickHouseErrorCode(error);
  if (code === "EEXIST" || code === "ENOTDIR") return "not a folder";
  if (code === "EACCES" || code === "EPERM" || code === "EROFS") return "not permitted";
  return "unopenable";
}
