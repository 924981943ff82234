import { startKafkaBroker } from "../../support/kafka-broker.js";
for (const properties of [{ "log.segment.bytes": 10 }, { "process.roles": "broker,controller", "controller.listener.names": "NOPE" }]) {
  try { const b = await startKafkaBroker({ fetchJars: false, properties, startupTimeoutMs: 20000 }); console.log("unexpected start"); await b.stop(); }
  catch (error) { console.log(String(error).slice(0, 1500)); }
}
try { await startKafkaBroker({ fetchJars: false, javaCommand: "/nonexistent/java" }); } catch (error) { console.log(String(error)); }
