/**
 * A connection that sends the start of an HTTP/1.1 GET of `path` and never ends its headers — what an attacker
 * holding a server's connections sends. Resolves once the server accepted or closed it; `closed` is told when the
 * connection closes (the server closing it past its bound or its headers time).
 */
import net from "node:net";

export function halfRequest(port: number, path: string, closed: () => void): Promise<net.Socket> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.on("error", () => {});
    socket.on("close", closed);
    socket.once("connect", () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
      resolve(socket);
    });
    socket.once("close", () => resolve(socket));
  });
}
