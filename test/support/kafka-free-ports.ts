/**
 * Free TCP ports on 127.0.0.1 for a test broker's listeners.
 *
 * All servers are held open until every port is known, so the ports are
 * distinct; they are released before the broker binds them, which leaves a
 * short window in which another process could take one (the broker harness
 * retries with fresh ports when that happens).
 */
import net from "node:net";

export async function reserveFreePorts(count: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    const ports: number[] = [];
    for (let index = 0; index < count; index += 1) {
      const server = net.createServer();
      servers.push(server);
      ports.push(
        await new Promise<number>((resolve, reject) => {
          server.once("error", reject);
          server.listen({ host: "127.0.0.1", port: 0, exclusive: true }, () => {
            const address = server.address();
            if (address === null || typeof address === "string") reject(new Error("listening socket has no TCP address"));
            else resolve(address.port);
          });
        }),
      );
    }
    return ports;
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}
