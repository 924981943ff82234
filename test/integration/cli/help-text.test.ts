/**
 * Every command's `--help` as a user reads it (bin/ragscope.js as a
 * subprocess): each command listed by the top-level help, and each of a
 * command group's, answers `--help` with exit 0, and shows option defaults as
 * they are typed on the command line — `(default: 0.05)`, not commander's JSON
 * `(default: "0.05")`, and no `(default: [])` beside a repeatable option.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

function help(command: readonly string[]): string {
  const child = spawnSync(process.execPath, [ragscope, ...command, "--help"], { encoding: "utf8", cwd: projectRoot, env: { ...process.env, RAGSCOPE_CONFIG: "" } });
  assert.equal(child.status, 0, `ragscope ${command.join(" ")} --help: ${child.stderr}`);
  return child.stdout;
}

/** The commands a help text lists under "Commands:", without commander's own `help`. */
function commandsListed(text: string): string[] {
  const section = text.split(/^Commands:$/m)[1] ?? "";
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((match) => match[1]!).filter((name) => name !== "help");
}

/** Every command, groups' subcommands included, with its help text (wrapped lines joined). */
function everyHelp(): Map<string, string> {
  const texts = new Map<string, string>();
  const visit = (command: string[]) => {
    const text = help(command);
    texts.set(command.join(" "), text.replace(/\s+/g, " "));
    for (const name of commandsListed(text)) visit([...command, name]);
  };
  visit([]);
  return texts;
}

describe("ragscope --help", () => {
  const texts = everyHelp();

  test("every command and subcommand is reached", () => {
    for (const command of ["validate", "eval", "report", "experiment report", "dataset push", "config"]) assert.ok(texts.has(command), `${command}: ${[...texts.keys()].join(", ")}`);
  });

  test("option defaults read as typed: numbers and texts unquoted, no empty list", () => {
    for (const [command, text] of texts) {
      assert.doesNotMatch(text, /\(default: "/, `ragscope ${command} --help quotes a default`);
      assert.doesNotMatch(text, /default: \[\]/, `ragscope ${command} --help shows an empty list as a default`);
    }
    const experimentReport = texts.get("experiment report")!;
    assert.match(experimentReport, /--alpha <level> significance level \(default: 0\.05\)/);
    assert.match(experimentReport, /--power <power> power for the minimum sample size \(default: 0\.8\)/);
    assert.match(experimentReport, /--unit <unit> .* user or session \(default: user\)/);
    assert.match(experimentReport, /--tenant <id> only this tenant's requests, .* reads as not stored --json/);
    assert.match(texts.get("eval")!, /--concurrency <n> cases run at once \(default: 4\)/);
  });
});

describe("ragscope help <command>", () => {
  const run = (args: readonly string[]) => spawnSync(process.execPath, [ragscope, ...args], { encoding: "utf8", cwd: projectRoot, env: { ...process.env, RAGSCOPE_CONFIG: "" } });

  test("an unknown name is refused as `ragscope <name>` refuses it: unknown command, the suggestion, exit 2", () => {
    for (const [args, unknown] of [[["help", "nosuch"], "nosuch"], [["help", "dataset", "nosuch"], "nosuch"]] as const) {
      const asked = run(args);
      assert.equal(asked.status, 2, `ragscope ${args.join(" ")}: ${asked.stderr}`);
      assert.match(asked.stderr, new RegExp(`^error: unknown command '${unknown}'\\n`), asked.stderr);
      assert.equal(asked.stdout, "", "no help on stdout, as if the request had been answered");
    }
    const misspelled = run(["help", "valdate"]);
    assert.equal(misspelled.status, 2);
    assert.match(misspelled.stderr, /^error: unknown command 'valdate'\n\(Did you mean validate\?\)/);
    // The same words as the command itself, whose refusal this mirrors.
    assert.equal(misspelled.stderr, run(["valdate"]).stderr);
  });

  test("a known command, a group's subcommand included, prints that command's help and exits 0", () => {
    for (const args of [["validate"], ["dataset", "push"], ["experiment", "report"]]) {
      const asked = run(["help", ...args]);
      assert.equal(asked.status, 0, asked.stderr);
      assert.equal(asked.stdout, help(args), `ragscope help ${args.join(" ")}`);
    }
    const general = run(["help"]);
    assert.equal(general.status, 0);
    assert.equal(general.stdout, help([]));
  });
});
