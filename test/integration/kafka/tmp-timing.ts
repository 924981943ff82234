import { readFileSync, existsSync } from "node:fs";
import { startKafkaBroker } from "../../support/kafka-broker.js";
for (let round = 0; round < 3; round++) {
  const broker = await startKafkaBroker({ fetchJars: false });
  console.log("start", broker.lastStartupMs, existsSync("/work/main/.kafka/libs/broker.jsa"));
  let t = performance.now();
  await broker.stopProcess();
  console.log("graceful stop", Math.round(performance.now() - t), existsSync("/work/main/.kafka/libs/broker.jsa"));
  await broker.startProcess();
  console.log("start again", broker.lastStartupMs);
  await broker.stopProcess({ signal: "SIGKILL" });
  await broker.startProcess();
  console.log("start after crash", broker.lastStartupMs);
  if (round === 2) console.log(readFileSync(broker.logFile, "utf8"));
  t = performance.now();
  await broker.stop();
  console.log("stop", Math.round(performance.now() - t));
}
