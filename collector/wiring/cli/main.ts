/**
 * The `ragscope` command line. This file only declares the commands and their
 * options (commander); each command's work lives in its own file and is loaded
 * when that command runs, so `--help` and `--version` answer without loading
 * the ClickHouse engine, kafkajs or the OpenTelemetry SDK.
 *
 * Every failure reaches the user as one line (describe-failure.ts) and an exit
 * code from exit-codes.ts: 0 ok, 1 the check failed, 2 could not decide.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { checkRequiredOptions, requiredOption } from "./required-option.js";
import { addConfigFlags, configFileOption, flagValues } from "./config-flags.js";
import { describeFailure } from "./describe-failure.js";
import { readableDefaults } from "./readable-defaults.js";
import { helpRequestArguments } from "./help-request.js";
import { ExitCode } from "./exit-codes.js";
import { repeatedStoredIdentifier, repeatedTenant } from "./tenant-argument.js";
import { packageFiles, packageVersion } from "../config/package-files.js";
import { MOST_TIMER_MILLISECONDS, TIMER_LIMIT_REASON } from "../config/timer-limit.js";
import { readDebugVariable } from "./debug-variable.js";
import { TCP_PORT_RANGE } from "../config/tcp-port.js";
import { parseWholeNumber, type WholeNumberRange } from "../../../core/whole-number.js";

export interface Output {
  log: (line: string) => void;
  error: (line: string) => void;
}

const standardOutput: Output = { log: (line) => console.log(line), error: (line) => console.error(line) };

// commander prints these after "error: option '--port <port>' argument 'x' is invalid.": a sentence of their own.
/** A whole number in `range`, in decimal digits only (core/whole-number.ts): 0x10, 1e3 or 8.0 are refused, not read. */
function wholeNumberIn(range: WholeNumberRange): (value: string) => number {
  return (value) => {
    const parsed = parseWholeNumber(value, range);
    if (!parsed.ok) throw new InvalidArgumentError(`It ${parsed.error}.`);
    return parsed.value;
  };
}

/** A duration a timer waits: past Node's longest delay `setTimeout` fires after 1 ms instead, with only a warning. */
const milliseconds = wholeNumberIn({ minimum: 1, maximum: MOST_TIMER_MILLISECONDS, why: TIMER_LIMIT_REASON });
/** Repetitions of every case: each one is a task call and a Case Result held until the run ends. */
const repetitions = wholeNumberIn({ minimum: 1, maximum: 1_000, why: "each repetition runs every case once more and keeps its results" });
/** Cases run at once, each with a task call and its spans in flight. */
const concurrentCases = wholeNumberIn({ minimum: 1, maximum: 1_000, why: "each case in flight holds a task call and its spans" });
/** Dead letters listed, read into memory at once. */
const listedLetters = wholeNumberIn({ minimum: 1, maximum: 100_000, why: "list fewer, or write one letter's message with --body" });
const port = wholeNumberIn(TCP_PORT_RANGE);

const repeatable = (value: string, previous: string[]) => [...previous, value];

const dataDirOption = () => new Option("--data-dir <folder>", "embedded ClickHouse engine data folder (default .ragscope/chdb, or RAGSCOPE_DATA_DIR)");

export async function main(argv: string[], output: Output = standardOutput, environment: NodeJS.ProcessEnv = process.env): Promise<number> {
  // Refused before any command runs, as a boolean setting's variable is: a mistyped word must not switch it either way.
  const debug = readDebugVariable(environment);
  if (!debug.ok) {
    output.error(`ragscope: ${debug.error}`);
    return ExitCode.undecided;
  }
  let exitCode: number = ExitCode.ok;
  let running = "";
  const program = new Command()
    .name("ragscope")
    .description("Evaluate RAG applications from their OpenTelemetry traces")
    .version(packageVersion, "-V, --version", "print the ragscope version")
    .showHelpAfterError()
    .configureHelp(readableDefaults)
    .configureOutput({ writeOut: (text) => output.log(text.trimEnd()), writeErr: (text) => output.error(text.trimEnd()) })
    .exitOverride();
  program.hook("preAction", (_program, command) => {
    checkRequiredOptions(command);
    running = command.parent && command.parent !== program ? `${command.parent.name()} ${command.name()}` : command.name();
  });
  // Settings are parsed once per command, from these (collector/wiring/cli/command-settings.ts).
  const settingsRequest = (configFile: string | undefined) => ({ environment, ...(configFile === undefined ? {} : { configFile }) });

  program
    .command("validate")
    .description("check dataset files of Eval Cases; exits 1 on any problem")
    .argument("<files...>", "YAML, JSON or JSON Lines dataset files (Eval Case format or the seed's simple format)")
    .option("--stats", "also print the mix of case categories and splits against the seed's recommended 50/20/10/10/10, per file and, for several files, in total")
    .action(async (files: string[], options: { stats?: boolean }) => {
      const { validateCommand } = await import("./validate-command.js");
      exitCode = await validateCommand(files, output, options);
    });

  program
    .command("demo")
    .description("run the example RAG service over its dataset through the embedded collector and print the evaluation")
    .option("--dataset <file>", "dataset of Eval Cases", packageFiles.demoDataset)
    .addOption(dataDirOption())
    .option("--run-id <id>", "run id (default demo-<dataset_id>-<dataset_version>)")
    .option("--timeout-ms <ms>", "how long to wait for the evaluation", milliseconds, 120_000)
    .addOption(configFileOption())
    .action(async (options: { dataset: string; dataDir?: string; runId?: string; timeoutMs: number; config?: string }) => {
      const { runDemo } = await import("./demo-command.js");
      exitCode = (await runDemo(options, settingsRequest(options.config), output)) === null ? ExitCode.undecided : ExitCode.ok;
    });

  program
    .command("eval")
    .description("run a task module over a dataset through the embedded collector (or a running one: --endpoint, --read-api), evaluate every case, compare with a baseline and gate; exits 0 passed, 1 blocked, 2 could not decide, 130 interrupted (SIGINT/SIGTERM: what finished is stored)")
    .addOption(requiredOption("--dataset <file>", "dataset of Eval Cases (YAML, JSON or JSON Lines; Eval Case or the seed's simple format)"))
    .addOption(requiredOption("--task <module>", "module whose default export is (case, context) => Promise<answer>"))
    .option("--run-id <id>", "run id, refused when it already holds results (default: a fresh eval-<dataset_id>-<dataset_version>-<UTC start, YYYYMMDDTHHMMSSZ>)")
    .option("--repeat <n>", "run every case n times and report answer consistency", repetitions, 1)
    .option("--concurrency <n>", "cases run at once", concurrentCases, 4)
    .option("--timeout-ms <ms>", "per-case timeout of the task", milliseconds, 60_000)
    .option("--baseline <run>", "a stored run to compare with (paired bootstrap, McNemar, regression rules)")
    .option("--corpus <file>", "the knowledge base's document ids, one per line (or JSON Lines .jsonl with a document_id on each line; at most 256 MiB): a failed case whose gold document is not among them and was never retrieved gets the root cause DATA_MISSING, not RETRIEVAL_MISS (embedded collector only; without it DATA_MISSING is never assigned)")
    .option("--tenant <id>", "run as this tenant: every request is recorded under it, and the run and --baseline are read only from its data (embedded collector only)")
    .option("--all-tenants", "compare and gate against a --baseline whose results carry several tenants, all of them together; without it such a baseline is refused before any case runs (exit 2), since any tenant's spans may name any run id")
    .option("--gates <file>", "gate file in the seed's format", packageFiles.gateFile)
    .option("--split <name>", "only the cases of this split (metadata.split or metadata.dataset_role)")
    .option("--output <file>", "write the Case Results and Evaluation Results as JSON")
    .option("--junit <file>", "write JUnit XML, one test per case")
    .option("--lineage <field=value>", "run lineage, e.g. prompt_version=v3 (repeatable)", repeatable, [] as string[])
    .option("--allow-missing", "let gate rules whose metric was not measured pass (they are still listed)")
    .option("--endpoint <url>", "send to a running collector's OTLP/HTTP receiver (e.g. ragscope serve's http://127.0.0.1:4318) instead of the embedded one; needs --read-api")
    .option("--read-api <url>", "that collector's read API (the address serve prints as \"web UI and read API\"; token in RAGSCOPE_READ_API_TOKEN)")
    .option("--evaluation-timeout-ms <ms>", "how long to wait after the last case until every case is evaluated", milliseconds, 120_000)
    .addOption(dataDirOption())
    .addOption(configFileOption())
    .action(async (options: import("./eval-command.js").EvalOptions & { config?: string }) => {
      const { evalCommand } = await import("./eval-command.js");
      exitCode = await evalCommand(options, settingsRequest(options.config), output);
    });

  program
    .command("serve")
    .description("run the collector on the embedded default as a service (OTLP/HTTP and OTLP/gRPC receiver, in-process evaluation, ClickHouse engine, /metrics)")
    .option("--dataset <file>", "load Eval Cases from a dataset file (repeatable), for traces of offline runs", repeatable, [] as string[])
    .addOption(dataDirOption())
    .option("--host <host>", "receiver address (default 127.0.0.1, or RAGSCOPE_RECEIVER_HOST)")
    .option("--port <port>", "receiver port (default 4318, or RAGSCOPE_RECEIVER_PORT; 0 picks a free one)", port)
    .option("--grpc-port <port>", "OTLP/gRPC receiver port (default 4317, or a free one when --port is 0; RAGSCOPE_GRPC_PORT); 0 picks a free one, off turns gRPC off")
    .option("--metrics-host <host>", "address of /metrics, /healthz and /readyz (default 127.0.0.1, or RAGSCOPE_METRICS_HOST)")
    .option("--metrics-port <port>", "port of /metrics, /healthz and /readyz (default 9464, or RAGSCOPE_METRICS_PORT; 0 picks a free one)", port)
    .option("--ui-host <host>", "address of the web UI and read API (default 127.0.0.1; any other address needs RAGSCOPE_UI_TOKENS=reviewer=token,...)")
    .option("--ui-port <port>", "port of the web UI and read API (default 4000; 0 picks a free one)", port)
    .addOption(configFileOption())
    .action(async (options: { dataset: string[]; dataDir?: string; host?: string; port?: number; grpcPort?: string; metricsHost?: string; metricsPort?: number; uiHost?: string; uiPort?: number; config?: string }) => {
      const { serveCommand } = await import("./serve-command.js");
      exitCode = await serveCommand(options, settingsRequest(options.config), output);
    });

  program
    .command("gate")
    .description("check a run's stored results against a gate file (release gate); exits 0 passed, 1 blocked, 2 could not decide")
    .addOption(requiredOption("--run <id>", "the run to check", "it is the run id ragscope eval and ragscope demo print (the web UI lists the stored runs on /runs)"))
    .option("--gates <file>", "gate file in the seed's format", packageFiles.gateFile)
    .option("--baseline <id>", "a previous run, for regression rules such as overall_score_drop")
    .option("--allow-missing", "let rules whose metric was not measured pass the gate (they are still listed)")
    .option("--tenant <id>", "read only this tenant's cases (repeat for several): another tenant's run reads as not stored", repeatedTenant, [])
    .option("--all-tenants", "without --tenant, gate a run (and --baseline) whose results carry several tenants on all of them together; without it such a run is not decided (exit 2), since any tenant's spans may name any run id")
    .option("--junit <file>", "write JUnit XML: the release gate suite of eval --junit, one test per rule, the veto cases and what kept the gate from deciding")
    .addOption(dataDirOption())
    .addOption(configFileOption())
    .action(async (options: { run: string; gates: string; baseline?: string; allowMissing?: boolean; dataDir?: string; tenant: string[]; allTenants?: boolean; junit?: string; config?: string }) => {
      const { gateCommand } = await import("./gate-command.js");
      exitCode = await gateCommand(options, settingsRequest(options.config), output);
    });

  program
    .command("report")
    .description("draw the dashboards' panels from the store into a static HTML file and print the headline numbers; exits 1 when a panel fails, 2 when the data folder does not exist or a --run, --baseline or --candidate has no stored results")
    .addOption(dataDirOption())
    .option("--out <file>", "the HTML file to write", ".ragscope/report.html")
    .option("--from <time>", "start of the time range: now-24h or an ISO date-time (default: the first stored request)")
    .option("--to <time>", "end of the time range (default: the last stored request; for the collector health board, its latest snapshot when that is later)")
    .option("--service <name>", "only this service (repeat for several)", repeatedStoredIdentifier("service name"), [])
    .option("--tenant <id>", "only this tenant's data, read through the store restricted to it (repeat for several): the report holds nothing of other tenants", repeatedTenant, [])
    .option("--dataset <id>", "only this dataset (repeat for several)", repeatedStoredIdentifier("dataset id"), [])
    .option("--run <id>", "only this run (repeat for several)", repeatedStoredIdentifier("run id"), [])
    .option("--baseline <run>", "baseline run of the runs comparison (default: the run before the latest)")
    .option("--candidate <run>", "candidate run of the runs comparison (default: the latest run)")
    .option("--trace-id <id>", "the trace whose stages are shown (default: the latest failing one)")
    .option("--trace-url <template>", "link trace ids to a trace viewer, e.g. http://tempo:3200/trace/{trace_id}")
    .addOption(configFileOption())
    .action(async (options: import("./report-command.js").ReportOptions & { config?: string }) => {
      const { runReport } = await import("./report-command.js");
      const outcome = await runReport(options, settingsRequest(options.config), output);
      exitCode = outcome === null ? ExitCode.undecided : outcome.panelErrors > 0 ? ExitCode.checkFailed : ExitCode.ok;
    });

  program
    .command("dead-letters")
    .description("list what the embedded collector acknowledged and could not evaluate (kept in the store with the reason), newest first; --body ID --out FILE writes one letter's message")
    .addOption(dataDirOption())
    .option("--limit <n>", "letters listed", listedLetters, 100)
    .option("--body <letter id>", "write this letter's message (OTLP or the rejected Case Result) to --out")
    .option("--out <file>", "where --body writes")
    .addOption(configFileOption())
    .action(async (options: import("./dead-letters-command.js").DeadLettersOptions & { config?: string }) => {
      const { deadLettersCommand } = await import("./dead-letters-command.js");
      exitCode = await deadLettersCommand(options, settingsRequest(options.config), output);
    });

  const evaluatorKafkaSettings = ["brokers", "clientId", "topic", "deadLetterTopic", "repartitionTopic", "logsTopic", "groupId", "sessionTimeoutMs", "heartbeatIntervalMs", "partitionsConsumedConcurrently", "maxMessageBytes", "compression", "initialOffset", "commitIntervalMs", "metadataMaxAgeMs", "stopTimeoutMs"].map((name) => `kafka.${name}`);
  const roles = [
    {
      name: "receive",
      description: "receive OTLP traces (HTTP and gRPC) and publish them to Kafka, keyed by trace id",
      // The ClickHouse server its health snapshots go to, named as every other command names it (a flag, or the variable);
      // not --data-dir: the receiver never opens an embedded store.
      sections: ["receiver.host", "receiver.port", "receiver.grpcPort", "kafka.brokers", "kafka.clientId", "kafka.topic", "kafka.maxMessageBytes", "kafka.compression", "kafka.publishTimeoutMs", "kafka.probeIntervalMs", "kafka.stopTimeoutMs", "clickhouse.url", "clickhouse.username", "clickhouse.database", "observe"],
    },
    {
      name: "evaluate",
      description: "consume the Kafka span topic as a consumer group, evaluate each trace and write the results to ClickHouse",
      // Not the receiver's publish deadline and availability probe: the evaluator never publishes a request.
      sections: [...evaluatorKafkaSettings, "clickhouse", "assembler", "memory", "sink", "observe"],
    },
    {
      name: "collect",
      description: "receive OTLP (HTTP and gRPC), publish to Kafka and evaluate from Kafka in one process",
      sections: ["receiver.host", "receiver.port", "receiver.grpcPort", "kafka", "clickhouse", "assembler", "memory", "sink", "observe"],
    },
  ] as const;
  for (const role of roles) {
    const command = addConfigFlags(program.command(role.name).description(role.description), role.sections).addOption(configFileOption());
    command.action(async (options: { config?: string }) => {
      const { runRole } = await import("./role-commands.js");
      exitCode = await runRole(role.name, settingsRequest(options.config), flagValues(command), output);
    });
  }

  const allSettings = ["receiver", "kafka", "clickhouse", "assembler", "memory", "sink", "observe"];
  const configCommand = addConfigFlags(
    program.command("config").description("print the effective configuration as YAML — each value with where it came from (flag, environment variable, config file, default), secrets masked; exits 2 when it is invalid"),
    allSettings,
  ).addOption(configFileOption());
  configCommand.action(async (options: { config?: string }) => {
    const { configCommand: printConfig } = await import("./config-command.js");
    exitCode = await printConfig(settingsRequest(options.config), flagValues(configCommand), output);
  });

  const migrate = addConfigFlags(
    program
      .command("migrate")
      .description("apply the schema migrations the configured store (ClickHouse server or --data-dir) has not had yet and list them; every collector role also applies them on start; exits 2 when a migration fails"),
    ["clickhouse"],
  ).addOption(configFileOption());
  migrate.action(async (options: { config?: string }) => {
    const { migrateCommand } = await import("./migrate-command.js");
    exitCode = await migrateCommand(settingsRequest(options.config), flagValues(migrate), output);
  });

  const experiment = program.command("experiment").description("online A/B experiments (requests carrying ragscope.experiment.id and .variant)");
  experiment
    .command("report")
    .description("compare the variants of one experiment: traffic, sample ratio check, behaviour, rule and judge metrics with difference to control, confidence interval and p-value, lineage differences and a plain-words decision; exits 2 when nothing can be compared")
    .addOption(requiredOption("--id <experiment>", "the experiment id", "it is the experimentId your requests carry (ragscope.experiment.id; the web UI lists the experiments on /experiments)"))
    .addOption(dataDirOption())
    .option("--control <variant>", "the control variant (default: the variant named control when present, else the first by name)")
    .option("--unit <unit>", "the randomisation unit requests are clustered by: user or session", "user")
    .option("--alpha <level>", "significance level", "0.05")
    .option("--power <power>", "power for the minimum sample size", "0.8")
    .option("--mde <fraction>", "the relative change worth detecting, as a fraction of the control's value", "0.1")
    .option("--method <method>", "analytic (z / Welch / clustered delta method) or bootstrap (resampling units)", "analytic")
    .option("--weight <variant=weight>", "the intended split, for the sample ratio check (repeat; default equal)", repeatable, [])
    .option("--tenant <id>", "only this tenant's requests, read through the store restricted to it (repeat for several): another tenant's experiment reads as not stored", repeatedTenant, [])
    .option("--json", "print the report as JSON")
    .addOption(configFileOption())
    .action(async (options: import("./experiment-command.js").ExperimentReportCommandOptions & { config?: string }) => {
      const { experimentReportCommand } = await import("./experiment-command.js");
      exitCode = await experimentReportCommand(options, settingsRequest(options.config), output);
    });

  const dataset = program.command("dataset").description("manage Eval Cases in the store");
  const push = addConfigFlags(
    dataset
      .command("push")
      .description("load the Eval Cases of dataset files into the configured store (ClickHouse server or --data-dir), for evaluators started without --dataset; exits 1 on an invalid dataset (nothing pushed)")
      .argument("<files...>", "YAML, JSON or JSON Lines dataset files, checked like ragscope validate"),
    ["clickhouse"],
  ).addOption(configFileOption());
  push.action(async (files: string[], options: { config?: string }) => {
    const { datasetPushCommand } = await import("./dataset-push-command.js");
    exitCode = await datasetPushCommand(files, settingsRequest(options.config), flagValues(push), output);
  });

  try {
    await program.parseAsync(helpRequestArguments(program, argv));
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; commander already printed the usage error with the help.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.undecided;
    }
    for (const line of describeFailure(running || "", error, debug.value)) output.error(line);
    return ExitCode.undecided;
  }
  return exitCode;
}
