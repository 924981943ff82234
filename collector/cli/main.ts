/**
 * The `ragscope` command line. Each command lives in its own file; this one
 * only declares them (commander) and maps their results to exit codes.
 */
import { Command, InvalidArgumentError } from "commander";
import { collectCommand } from "./collect-command.js";
import { defaultDemoDataset, runDemo } from "./demo-command.js";
import { defaultGateFile, gateCommand } from "./gate-command.js";
import { evaluateCommand } from "./evaluate-command.js";
import { receiveCommand } from "./receive-command.js";
import { reportCommand } from "./report-command.js";
import { serveCommand } from "./serve-command.js";
import { validateCommand } from "./validate-command.js";

const console_ = { log: (line: string) => console.log(line), error: (line: string) => console.error(line) };

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new InvalidArgumentError("must be a positive whole number");
  return parsed;
}

export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  const program = new Command()
    .name("ragscope")
    .description("Evaluate RAG applications from their OpenTelemetry traces")
    .showHelpAfterError()
    .exitOverride();

  program
    .command("validate")
    .description("check dataset files of Eval Cases; exits 1 on any problem")
    .argument("<files...>", "YAML or JSON dataset files")
    .action(async (files: string[]) => {
      exitCode = await validateCommand(files, console_);
    });

  program
    .command("demo")
    .description("run the example RAG service over its dataset through the embedded collector and print the evaluation")
    .option("--dataset <file>", "dataset of Eval Cases", defaultDemoDataset)
    .option("--data-dir <folder>", "where the embedded ClickHouse engine keeps its data (default .ragscope/chdb, or RAGSCOPE_DATA_DIR)")
    .option("--run-id <id>", "run id (default demo-<dataset_id>-<dataset_version>)")
    .option("--timeout-ms <ms>", "how long to wait for the evaluation", positiveInteger, 120_000)
    .action(async (options: { dataset: string; dataDir?: string; runId?: string; timeoutMs: number }) => {
      const outcome = await runDemo(options, process.env, console_);
      exitCode = outcome === null ? 1 : 0;
    });

  const setExitCode = (code: number) => {
    exitCode = code;
  };
  for (const command of [receiveCommand(console_, setExitCode), evaluateCommand(console_, setExitCode), collectCommand(console_, setExitCode), reportCommand(console_, setExitCode)]) {
    program.addCommand(command.copyInheritedSettings(program));
  }

  program
    .command("serve")
    .description("run the collector on the embedded default as a service (OTLP/HTTP receiver, in-process evaluation, ClickHouse engine)")
    .option("--dataset <file>", "load Eval Cases from a dataset file (repeatable), for traces of offline runs", (value: string, previous: string[]) => [...previous, value], [] as string[])
    .option("--data-dir <folder>", "embedded ClickHouse engine data folder (default .ragscope/chdb, or RAGSCOPE_DATA_DIR)")
    .option("--host <host>", "receiver address (default 127.0.0.1, or RAGSCOPE_RECEIVER_HOST)")
    .option("--port <port>", "receiver port (default 4318, or RAGSCOPE_RECEIVER_PORT)", positiveInteger)
    .action(async (options: { dataset: string[]; dataDir?: string; host?: string; port?: number }) => {
      exitCode = await serveCommand(options, process.env, console_);
    });

  program
    .command("gate")
    .description("check a run's stored results against a gate file (release gate); exits 0 passed, 1 blocked, 2 unusable input")
    .requiredOption("--run <id>", "the run to check")
    .option("--gates <file>", "gate file in the seed's format", defaultGateFile)
    .option("--baseline <id>", "a previous run, for regression rules such as overall_score_drop")
    .option("--allow-missing", "let rules whose metric was not measured pass the gate (they are still listed)")
    .option("--data-dir <folder>", "embedded ClickHouse engine data folder (default .ragscope/chdb, or RAGSCOPE_DATA_DIR)")
    .action(async (options: { run: string; gates: string; baseline?: string; allowMissing?: boolean; dataDir?: string }) => {
      exitCode = await gateCommand(options, process.env, console_);
    });

  try {
    await program.parseAsync(argv);
  } catch (error) {
    const code = (error as { exitCode?: number }).exitCode;
    // commander already printed help or the usage error.
    return typeof code === "number" ? code : 1;
  }
  return exitCode;
}
