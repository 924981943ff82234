import net from "node:net";
import { startKafkaBroker } from "../../support/kafka-broker.js";
const server = net.createServer(); await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
const port = (server.address() as net.AddressInfo).port;
const t = performance.now();
try {
  const b = await startKafkaBroker({ fetchJars: false, properties: { listeners: `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${port + 1}`, "advertised.listeners": `PLAINTEXT://127.0.0.1:${port}` } });
  console.log("unexpected start", b.brokers); await b.stop();
} catch (error) { console.log(String(error).slice(0, 1200), "\nafter", Math.round(performance.now() - t), "ms"); }
try { await startKafkaBroker({ fetchJars: false, javaCommand: "/nonexistent/java" }); } catch (error) { console.log(String(error)); }
server.close();
