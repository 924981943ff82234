/** A bare HTTP client for receiver tests: sends exactly the bytes and headers given. */
import http from "node:http";

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Uint8Array;
}

export function sendRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Uint8Array | string },
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    const request = http.request(
      url,
      {
        method: options.method ?? "POST",
        headers: { ...(body ? { "content-length": String(body.length) } : {}), ...options.headers },
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Uint8Array.from(Buffer.concat(chunks)) }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}
