/**
 * `ragscope config` and `--config FILE` as a user meets them (bin/ragscope.js
 * as a subprocess): the effective settings with where each came from —
 * flags > environment > config file > defaults — secrets never printed, and
 * a bad file refused at start with the file and the key's path.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

/** The environment without any RAGSCOPE_ variable of the machine running the tests. */
const cleanEnvironment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("RAGSCOPE_")));

function run(args: string[], cwd: string, environment: Record<string, string> = {}) {
  const child = spawnSync(process.execPath, [ragscope, ...args], { encoding: "utf8", cwd, env: { ...cleanEnvironment, ...environment } });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

/** The value line of `section:` → `key:` in the printed YAML (value and its origin comment). */
function line(output: string, section: string, key: string): string {
  const lines = output.split("\n");
  const start = lines.indexOf(`${section}:`);
  assert.ok(start >= 0, `section ${section} printed`);
  const found = lines.slice(start + 1).find((text) => text.startsWith(`  ${key}:`));
  assert.ok(found, `${section}.${key} printed`);
  return found.trim();
}

const secrets = {
  password: "ch-password-7f3a",
  token: "receiver-token-91c2",
  apiKey: "sk-judge-key-55d0",
  slackPath: "T000/B000/slack-secret-0e1f",
  urlPassword: "url-password-a8b4",
};

describe("ragscope config", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-config-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("prints each value with where it came from: flag over environment over config file over default", async () => {
    const file = path.join(folder, "ragscope.yaml");
    await writeFile(
      file,
      [
        "receiver:",
        "  port: 4000", // overridden by the environment and then by the flag
        "  maxBodyBytes: 2048", // file only
        "kafka:",
        "  topic: from_file", // overridden by the environment
        "  brokers: [a:9092, b:9092]",
        "sampling:",
        "  defaultRate: 0.5",
        "  services: { checkout: 1 }",
        "",
      ].join("\n"),
    );
    const result = run(["config", "--config", file, "--port", "4500"], folder, { RAGSCOPE_RECEIVER_PORT: "4400", RAGSCOPE_KAFKA_TOPIC: "from_env" });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(line(result.stdout, "receiver", "port"), "port: 4500 # flag --port");
    assert.equal(line(result.stdout, "receiver", "maxBodyBytes"), `maxBodyBytes: 2048 # config file ${file}`);
    assert.equal(line(result.stdout, "receiver", "host"), "host: 127.0.0.1 # default");
    assert.equal(line(result.stdout, "kafka", "topic"), "topic: from_env # environment variable RAGSCOPE_KAFKA_TOPIC");
    assert.equal(line(result.stdout, "sampling", "defaultRate"), `defaultRate: 0.5 # config file ${file}`);

    // The output is YAML with the config file's keys: read back, it holds the effective values.
    const printed = parse(result.stdout) as Record<string, Record<string, unknown>>;
    assert.deepEqual(printed.kafka!.brokers, ["a:9092", "b:9092"]);
    assert.deepEqual(printed.sampling!.services, { checkout: 1 });
    assert.equal(printed.clickhouse!.dataPath, path.join(folder, ".ragscope", "chdb"));

    // And given back as a config file, it is accepted and changes nothing.
    const roundTrip = path.join(folder, "printed.yaml");
    await writeFile(roundTrip, result.stdout);
    const again = run(["config", "--config", roundTrip], folder);
    assert.equal(again.status, 0, again.stderr);
    assert.deepEqual(parse(again.stdout), printed);
  });

  test("the judge's spending limit says it is per process: N replicas can spend N times it, and how to size it for a group", async () => {
    const result = run(["config"], folder, { RAGSCOPE_JUDGE_SPENDING_LIMIT_PER_HOUR: "5" });
    assert.equal(result.status, 0, result.stderr);
    const shown = line(result.stdout, "judgeEndpoint", "spendingLimitPerHour");
    assert.match(shown, /^spendingLimitPerHour: 5 # environment variable RAGSCOPE_JUDGE_SPENDING_LIMIT_PER_HOUR; per process: /);
    assert.match(shown, /N of them can spend N times it/);
    assert.match(shown, /set the budget divided by the most replicas that run at once/);
    // Still a config file: the note is a comment.
    assert.equal((parse(result.stdout) as { judgeEndpoint: { spendingLimitPerHour: number } }).judgeEndpoint.spendingLimitPerHour, 5);
  });

  test("secrets are masked wherever they come from: ClickHouse password, auth tokens, judge API key, Slack webhooks, passwords in URLs", async () => {
    const file = path.join(folder, "secrets.yaml");
    await writeFile(file, ["judgeEndpoint:", `  apiKey: ${secrets.apiKey}`, "  model: judge-model", `  baseUrl: https://user:${secrets.urlPassword}@llm.example.com/v1`, ""].join("\n"));
    const result = run(["config", "--config", file], folder, {
      RAGSCOPE_CLICKHOUSE_PASSWORD: secrets.password,
      RAGSCOPE_AUTH_TOKENS: `${secrets.token},second-${secrets.token}`,
      RAGSCOPE_ALERT_SLACK_WEBHOOK_URLS: `https://hooks.slack.com/services/${secrets.slackPath}`,
    });
    assert.equal(result.status, 0, result.stderr);
    for (const secret of Object.values(secrets)) assert.ok(!result.stdout.includes(secret) && !result.stderr.includes(secret), `${secret} is not printed`);
    assert.equal(line(result.stdout, "clickhouse", "password"), 'password: "********" # environment variable RAGSCOPE_CLICKHOUSE_PASSWORD');
    assert.equal(line(result.stdout, "judgeEndpoint", "apiKey"), `apiKey: "********" # config file ${file}`);
    const printed = parse(result.stdout) as Record<string, Record<string, unknown>>;
    assert.deepEqual(printed.receiver!.authTokens, ["********", "********"]);
    assert.deepEqual(printed.alerts!.slackWebhookUrls, ["https://hooks.slack.com/********"]);
    assert.equal(printed.judgeEndpoint!.baseUrl, "https://user:********@llm.example.com/v1");
    // What is not a secret stays readable.
    assert.equal(printed.judgeEndpoint!.model, "judge-model");
  });

  test("a secret in a URL's query (api-key, token, sig …) is masked, the rest of the URL kept", async () => {
    const file = path.join(folder, "query-secret.yaml");
    await writeFile(file, ["judgeEndpoint:", "  model: judge-model", "  baseUrl: https://llm.example.com/v1?api-key=QUERY-SECRET-1&region=eu", ""].join("\n"));
    const result = run(["config", "--config", file], folder);
    assert.equal(result.status, 0, result.stderr);
    assert.ok(!result.stdout.includes("QUERY-SECRET-1") && !result.stderr.includes("QUERY-SECRET-1"));
    assert.equal((parse(result.stdout) as Record<string, Record<string, unknown>>).judgeEndpoint!.baseUrl, "https://llm.example.com/v1?api-key=********&region=eu");
  });

  test("a bad config file is refused with the file, the key's path and what to write: exit 2", async () => {
    const file = path.join(folder, "bad.yaml");
    await writeFile(file, ["kafka:", "  brokers: [kafka:9092, kafka]", "  topc: spans", "judge:", "  queue: redis", "receiver: 4318", ""].join("\n"));
    const result = run(["config", "--config", file], folder);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^ragscope config: the configuration is invalid/);
    assert.match(result.stderr, new RegExp(`config file ${escape(file)}, key receiver: must be a mapping of settings`));
    // Every problem at once, not one per attempt.
    const values = result;
    assert.match(values.stderr, new RegExp(`config file ${escape(file)}, key kafka\\.brokers\\[1\\]: must be host:port, e\\.g\\. kafka:9092`));
    assert.match(values.stderr, new RegExp(`config file ${escape(file)}, key kafka\\.topc: unknown setting; the settings of kafka are brokers, clientId, topic`));
    assert.match(values.stderr, new RegExp(`config file ${escape(file)}, key judge\\.queue: must be in_process or kafka`));
    assert.doesNotMatch(values.stderr, /^\s+at /m, "no stack trace");
  });

  test("environment and flag problems name the variable or flag; an unreadable or broken file names the file and line", async () => {
    const result = run(["config", "--session-timeout-ms", "100"], folder, { RAGSCOPE_SAMPLE_RATE: "2", RAGSCOPE_JUDGE_BASE_URL: "https://llm.example.com/v1" });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /flag --session-timeout-ms: must be at least 6000 \(milliseconds; brokers refuse shorter sessions/);
    assert.match(result.stderr, /environment variable RAGSCOPE_SAMPLE_RATE: must be a rate between 0 and 1/);
    assert.match(result.stderr, /judgeEndpoint\.model \(not set; RAGSCOPE_JUDGE_MODEL sets it\): set both the judge's base URL and model/);

    const missing = run(["config", "--config", path.join(folder, "absent.yaml")], folder);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /config file .*absent\.yaml: cannot read it \(there is no such file\); check the path given to --config \(or RAGSCOPE_CONFIG\)/);

    const broken = path.join(folder, "broken.yaml");
    await writeFile(broken, "kafka:\n  topic: [unclosed\n");
    const syntax = run(["config"], folder, { RAGSCOPE_CONFIG: broken });
    assert.equal(syntax.status, 2);
    assert.match(syntax.stderr, new RegExp(`config file ${escape(broken)}, line \\d+ column \\d+: not valid YAML or JSON`));
  });

  test("a .json config file is read as JSON: a trailing comma, which YAML would accept, is refused with its line and column", async () => {
    const file = path.join(folder, "trailing-comma.json");
    await writeFile(file, '{\n  "kafka": { "topic": "rag-spans" },\n}\n');
    const result = run(["config", "--config", file], folder);
    assert.equal(result.status, 2);
    assert.match(result.stderr, new RegExp(`config file ${escape(file)}, line 3 column 1: Expected double-quoted property name — not valid JSON`));

    const valid = path.join(folder, "valid.json");
    await writeFile(valid, '{ "kafka": { "topic": "rag-spans" } }\n');
    const accepted = run(["config", "--config", valid], folder);
    assert.equal(accepted.status, 0, accepted.stderr);
    assert.match(accepted.stdout, /topic: rag-spans # config file/);
  });

  test("the long-running roles read the same file and refuse a bad one before connecting to anything", async () => {
    const file = path.join(folder, "role.json");
    await writeFile(file, JSON.stringify({ kafka: { heartbeatIntervalMs: 20_000 } }));
    const result = run(["evaluate", "--config", file], folder);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^ragscope evaluate: the configuration is invalid/);
    assert.match(result.stderr, new RegExp(`config file ${escape(file)}, key kafka\\.heartbeatIntervalMs: must be at most a third of the session timeout`));
  });

  test("the Kafka roles' deadlines are settings: the publish deadline, the availability probe interval and the stop deadline, each shown with its source and checked", async () => {
    const defaults = run(["config"], folder);
    assert.equal(defaults.status, 0, defaults.stderr);
    assert.equal(line(defaults.stdout, "kafka", "publishTimeoutMs"), "publishTimeoutMs: 5000 # default");
    assert.equal(line(defaults.stdout, "kafka", "probeIntervalMs"), "probeIntervalMs: 5000 # default");
    assert.equal(line(defaults.stdout, "kafka", "stopTimeoutMs"), "stopTimeoutMs: 30000 # default");

    const changed = run(["config", "--publish-timeout-ms", "2000"], folder, { RAGSCOPE_KAFKA_PROBE_INTERVAL_MS: "10000", RAGSCOPE_KAFKA_STOP_TIMEOUT_MS: "45000" });
    assert.equal(changed.status, 0, changed.stderr);
    assert.equal(line(changed.stdout, "kafka", "publishTimeoutMs"), "publishTimeoutMs: 2000 # flag --publish-timeout-ms");
    assert.equal(line(changed.stdout, "kafka", "probeIntervalMs"), "probeIntervalMs: 10000 # environment variable RAGSCOPE_KAFKA_PROBE_INTERVAL_MS");
    assert.equal(line(changed.stdout, "kafka", "stopTimeoutMs"), "stopTimeoutMs: 45000 # environment variable RAGSCOPE_KAFKA_STOP_TIMEOUT_MS");

    const bad = run(["config", "--probe-interval-ms", "999999"], folder, { RAGSCOPE_KAFKA_PUBLISH_TIMEOUT_MS: "0", RAGSCOPE_KAFKA_STOP_TIMEOUT_MS: "soon" });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /environment variable RAGSCOPE_KAFKA_PUBLISH_TIMEOUT_MS: must be at least 100/);
    assert.match(bad.stderr, /flag --probe-interval-ms: must be at most 300000/);
    assert.match(bad.stderr, /environment variable RAGSCOPE_KAFKA_STOP_TIMEOUT_MS: must be a whole number from 1000 to 600000 .*, not "soon"/);
    // A publish deadline the stop deadline cannot wait out: the two named, and what to change.
    const crossed = run(["receive", "--stop-timeout-ms", "4000"], folder);
    assert.equal(crossed.status, 2, "refused before connecting to anything");
    assert.match(crossed.stderr, /kafka\.publishTimeoutMs.*must be shorter than the stop deadline \(4000 ms, flag --stop-timeout-ms\)/);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
