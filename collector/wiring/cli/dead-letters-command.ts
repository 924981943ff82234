/**
 * `ragscope dead-letters`: lists what the embedded collector acknowledged and
 * could not evaluate into a stored result (the store's dead_letters table,
 * newest first) with the reason, and with `--body ID --out FILE` writes one
 * letter's message as received, to inspect it or send it again. Exit 0; 2
 * when the store cannot be read, holds no ragscope data (a data folder that
 * does not exist is not created: existing-store.ts) or the letter does not
 * exist.
 */
import { writeFile } from "node:fs/promises";
import { describeUnwritableFile, writableFile } from "../../../core/file-access-problems.js";
import { openClickHouseStore } from "../../../store/clickhouse/clickhouse-store.js";
import { reportInvalidSettings, settingsForCommand, type SettingsRequest } from "./command-settings.js";
import { ExitCode } from "./exit-codes.js";
import { storeWithoutData } from "./existing-store.js";

type Output = { log: (line: string) => void; error: (line: string) => void };

/** Where the Kafka roles' dead letters are: `ragscope evaluate` and `collect` write them to a topic, never to the store. */
export const kafkaLettersElsewhere =
  "the Kafka roles (ragscope evaluate, collect) keep theirs in their dead-letter topic (RAGSCOPE_KAFKA_DEAD_LETTER_TOPIC, default otlp_spans_dead_letters), not in the store";

export interface DeadLettersOptions {
  dataDir?: string;
  limit: number;
  body?: string;
  out?: string;
}

export async function deadLettersCommand(options: DeadLettersOptions, request: SettingsRequest, output: Output): Promise<number> {
  if ((options.body === undefined) !== (options.out === undefined)) {
    output.error("ragscope dead-letters: give --body <letter id> and --out <file> together");
    return ExitCode.undecided;
  }
  if (options.out !== undefined) {
    const writable = await writableFile(options.out, "letter file (--out)");
    if (!writable.ok) {
      output.error(`ragscope dead-letters: ${writable.error}`);
      return ExitCode.undecided;
    }
  }
  const resolved = await settingsForCommand("dead-letters", request, { flags: { "clickhouse.dataPath": { value: options.dataDir, flag: "--data-dir" } } });
  if (!resolved.ok) {
    reportInvalidSettings("dead-letters", resolved.error, output);
    return ExitCode.undecided;
  }
  const clickhouse = resolved.value.settings.clickhouse;
  const nothingStored = await storeWithoutData("dead-letters", clickhouse);
  if (nothingStored !== null) {
    output.error(nothingStored);
    return ExitCode.undecided;
  }
  // Migrated: a store from before migration 0011 gets the (empty) table.
  const store = await openClickHouseStore(clickhouse);
  try {
    if (options.body !== undefined && options.out !== undefined) {
      const body = await store.deadLetters.body(options.body);
      if (body === null) {
        output.error(`ragscope dead-letters: no dead letter "${options.body}" in ${store.describe()}; \`ragscope dead-letters\` lists their ids`);
        return ExitCode.undecided;
      }
      try {
        await writeFile(options.out, body);
      } catch (error) {
        output.error(`ragscope dead-letters: ${describeUnwritableFile(options.out, error, "letter file (--out)")}`);
        return ExitCode.undecided;
      }
      output.log(`dead letter ${options.body}: ${body.byteLength} bytes written to ${options.out}`);
      return ExitCode.ok;
    }
    const total = await store.deadLetters.count();
    const letters = await store.deadLetters.list(options.limit);
    // A store the Kafka evaluators write reads 0 here whatever they dead-lettered: say where theirs are.
    output.log(`${total} dead letters in ${store.describe()}${total > letters.length ? ` (the newest ${letters.length} below)` : ""}; ${kafkaLettersElsewhere}`);
    for (const letter of letters) output.log(`${letter.receivedAt}  ${letter.letterId}  ${letter.code}  trace ${letter.traceId || "unknown"}  ${letter.bodyBytes} bytes  ${letter.reason}`);
    return ExitCode.ok;
  } finally {
    await store.close();
  }
}
