/**
 * One gRPC call over plain HTTP/2 (node:http2), for what a grpc-js client never sends: a message flagged as
 * compressed that is not, headers and then no message at all, or a message whose last byte waits. Resolves with the call's grpc-status and
 * grpc-message (trailers-only answers included).
 */
import http2 from "node:http2";

export interface RawGrpcOptions {
  /** Request headers besides :method, content-type and te (e.g. authorization, grpc-encoding). */
  headers: Record<string, string>;
  /** The length-prefixed message's bytes and its compressed flag; null: send none. */
  message: { bytes: Buffer; compressed: boolean } | null;
  /** With no message: end the stream anyway (a call without its message) instead of leaving it open. */
  endWithoutMessage?: boolean;
  /** Sends the message's last byte (and ends the call) only once this settles: a client still sending. */
  lastByteAfter?: Promise<void>;
  /** Told once HTTP/2 let all but the last byte go (the server's flow control took them). */
  onAllButLastByteSent?: () => void;
}

export async function rawGrpcCall(url: string, path: string, options: RawGrpcOptions): Promise<{ status: number; message: string }> {
  const session = http2.connect(url);
  // The server resets a stream its client left open once it answered: expected, not a failure.
  session.on("error", () => {});
  try {
    return await new Promise((resolve, reject) => {
      const stream = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers", ...options.headers });
      let headers: http2.IncomingHttpHeaders = {};
      // A call the server answered has a grpc-status; one whose connection closed first has none, however the stream
      // ended (an error, or an end or close with nothing received, as the connection's teardown happens to order them).
      const settle = (error?: Error) =>
        headers["grpc-status"] === undefined
          ? reject(error ?? new Error("the call ended without a grpc-status: the server closed the connection"))
          : resolve({ status: Number(headers["grpc-status"]), message: decodeURIComponent(String(headers["grpc-message"] ?? "")) });
      stream.on("response", (received) => (headers = received));
      stream.on("trailers", (trailers) => (headers = { ...headers, ...trailers }));
      stream.on("data", () => {});
      stream.on("error", (error) => settle(error));
      stream.on("end", () => settle());
      stream.on("close", () => settle());
      if (options.message === null) {
        if (options.endWithoutMessage === true) stream.end();
        return;
      }
      const frame = Buffer.alloc(5 + options.message.bytes.length);
      frame.writeUInt8(options.message.compressed ? 1 : 0, 0);
      frame.writeUInt32BE(options.message.bytes.length, 1);
      options.message.bytes.copy(frame, 5);
      if (options.lastByteAfter === undefined) return stream.end(frame);
      stream.write(frame.subarray(0, -1), () => options.onAllButLastByteSent?.());
      void options.lastByteAfter.then(() => stream.end(frame.subarray(-1)));
    });
  } finally {
    session.close();
  }
}
