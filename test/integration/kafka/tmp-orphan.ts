import { startKafkaBroker } from "../../support/kafka-broker.js";
const broker = await startKafkaBroker({ fetchJars: false });
console.log(JSON.stringify({ ready: true, run: broker.runDirectory, pid: process.pid }));
const mode = process.argv[2];
if (mode === "throw") throw new Error("boom");
if (mode === "exit") process.exit(3);
setInterval(() => {}, 1000);
