import fs from "node:fs";
for (const file of fs.readdirSync(".scratch-kafka/prof")) {
  const profile = JSON.parse(fs.readFileSync(".scratch-kafka/prof/" + file));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = profile.timeDeltas; let total = 0;
  const counts = new Map();
  profile.samples.forEach((id, i) => { counts.set(id, (counts.get(id) ?? 0) + (dt[i] ?? 0)); total += dt[i] ?? 0; });
  for (const [id, t] of counts) { const n = byId.get(id); const key = `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber}`; self.set(key, (self.get(key) ?? 0) + t); }
  console.log(file, "total s", (total/1e6).toFixed(1));
  [...self].sort((a,b)=>b[1]-a[1]).slice(0,25).forEach(([k,t])=>console.log((t/1e6).toFixed(2).padStart(7), k));
}
