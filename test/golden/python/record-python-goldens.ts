/**
 * Records the Python golden traces: the golden request (scenarios/policy-corpus.ts)
 * asked of a Python app, its spans written by a Python instrumentation —
 * - `llama-index-openinference`: a LlamaIndex query engine with a reranker
 *   (llama_index_policy_rag.py), traced by Arize's openinference-instrumentation-llama-index;
 * - `langchain-python-openinference`: the JS goldens' LangChain chain in Python
 *   (langchain_policy_rag.py), traced by Arize's openinference-instrumentation-langchain;
 * - `langchain-python-traceloop`: the same chain (langchain_policy_rag_traceloop.py),
 *   traced by Traceloop's opentelemetry-instrumentation-langchain, in a virtual
 *   environment of its own (requirements-traceloop-langchain.txt);
 * - `otel-genai-python`: a plain Python app (otel_genai_policy_rag.py) recorded
 *   with the OpenTelemetry GenAI conventions' own packages — its request and
 *   retrieval by opentelemetry-util-genai's TelemetryHandler, its chat call by
 *   opentelemetry-instrumentation-openai-v2 — in a virtual environment of its
 *   own (requirements-otel-genai.txt);
 * - `azure-ai-inference-python`: the same app with its chat call through the
 *   Azure AI Inference client library (azure_ai_inference_policy_rag.py),
 *   traced by its own instrumentor, its messages as span events
 *   (requirements-azure-ai-inference.txt).
 *
 * The Python app writes its spans as OTLP/JSON (the OTLP exporters' request
 * body, ids from a counter); this step makes the rest reproducible as
 * record-goldens.ts does for the JS goldens: timestamps replaced by their rank
 * (1 ms apart) and random UUIDs (LlamaIndex's node ids) numbered in order;
 * and, Python's own, the memory addresses in object reprs (`<function f at
 * 0x7f…>`, which the instrumentation writes into some inputs) set to 0.
 * The test replays the stored traces and needs no Python; only recording does:
 *
 *   python3 -m venv /tmp/ragscope-python && /tmp/ragscope-python/bin/pip install -r test/golden/python/requirements.txt
 *   node --import tsx test/golden/python/record-python-goldens.ts --python /tmp/ragscope-python/bin/python          # prints which goldens differ
 *   node --import tsx test/golden/python/record-python-goldens.ts --python /tmp/ragscope-python/bin/python --write  # rewrites them
 *   # a golden whose app needs other pins: its own environment, chosen with --requirements
 *   python3 -m venv /tmp/ragscope-python-traceloop-langchain
 *   /tmp/ragscope-python-traceloop-langchain/bin/pip install -r test/golden/python/requirements-traceloop-langchain.txt
 *   node --import tsx test/golden/python/record-python-goldens.ts --python /tmp/ragscope-python-traceloop-langchain/bin/python \
 *     --requirements requirements-traceloop-langchain.txt --write
 *   node --import tsx test/golden/python/record-python-goldens.ts --python /tmp/ragscope-python/bin/python --send-to http://127.0.0.1:4318/v1/traces
 *       # sends the same app's spans live (OTLP/HTTP protobuf, the Python exporter's default) to a running `ragscope serve`
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { checkOrWriteGolden, rankTimes, uuidNumberer } from "../record-goldens.js";
import { llamaIndexScenario } from "../scenarios/llama-index-rerank.js";

export const pythonGoldenNames = ["llama-index-openinference", "langchain-python-openinference", "langchain-python-traceloop", "otel-genai-python", "azure-ai-inference-python"] as const;
export type PythonGoldenName = (typeof pythonGoldenNames)[number];

const pythonDirectory = path.dirname(fileURLToPath(import.meta.url));

/** Each app, and the pinned requirements (beside this file) of the virtual environment that records it. */
const apps: Record<PythonGoldenName, { script: string; idSeed: number; requirements: string }> = {
  "llama-index-openinference": { script: "llama_index_policy_rag.py", idSeed: 0x1006, requirements: "requirements.txt" },
  "langchain-python-openinference": { script: "langchain_policy_rag.py", idSeed: 0x1007, requirements: "requirements.txt" },
  // Traceloop's instrumentation in an environment of its own: traceloop-sdk does not install beside these OpenTelemetry pins.
  "langchain-python-traceloop": { script: "langchain_policy_rag_traceloop.py", idSeed: 0x100b, requirements: "requirements-traceloop-langchain.txt" },
  // The GenAI conventions' own packages pin OpenTelemetry releases of their own.
  "otel-genai-python": { script: "otel_genai_policy_rag.py", idSeed: 0x100c, requirements: "requirements-otel-genai.txt" },
  // The Azure client library traces through azure-core's OpenTelemetry plugin, with its own pins.
  "azure-ai-inference-python": { script: "azure_ai_inference_policy_rag.py", idSeed: 0x100d, requirements: "requirements-azure-ai-inference.txt" },
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Runs the app with its scenario; `destination` is the app's `--otlp-json FILE` or `--endpoint URL`. */
async function runApp(python: string, name: PythonGoldenName, destination: string[]): Promise<void> {
  const directory = await mkdtemp(path.join(tmpdir(), "ragscope-python-golden-"));
  try {
    const scenarioPath = path.join(directory, "scenario.json");
    await writeFile(scenarioPath, JSON.stringify(llamaIndexScenario(apps[name].idSeed)));
    await promisify(execFile)(python, [path.join(pythonDirectory, apps[name].script), scenarioPath, ...destination], {
      maxBuffer: 16 * 1024 * 1024,
      // No __pycache__ beside the committed scripts.
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
    });
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** Records one Python golden and returns its OTLP/JSON text. */
export async function recordPythonGolden(python: string, name: PythonGoldenName): Promise<string> {
  const directory = await mkdtemp(path.join(tmpdir(), "ragscope-python-golden-"));
  try {
    const output = path.join(directory, "spans.otlp.json");
    await runApp(python, name, ["--otlp-json", output]);
    return toReproducibleText(JSON.parse(await readFile(output, "utf8")) as Json);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

const TIME_KEYS = new Set(["startTimeUnixNano", "endTimeUnixNano", "timeUnixNano"]);

const PYTHON_REPR_ADDRESS = / at 0x[0-9a-f]+>/g;

/** The rewrites of record-goldens.ts, on OTLP/JSON: times by rank, UUIDs numbered in order of appearance; repr addresses 0. */
function toReproducibleText(document: Json): string {
  const times: bigint[] = [];
  const collect = (value: Json): void => {
    if (Array.isArray(value)) value.forEach(collect);
    else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        if (TIME_KEYS.has(key) && typeof item === "string") times.push(BigInt(item));
        else collect(item);
      }
    }
  };
  collect(document);
  const rank = rankTimes(times);
  const numberUuids = uuidNumberer();
  const rewrite = (value: Json): Json => {
    if (typeof value === "string") return numberUuids(value).replace(PYTHON_REPR_ADDRESS, " at 0x0>");
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, TIME_KEYS.has(key) && typeof item === "string" ? rank(BigInt(item)).toString() : rewrite(item)]));
  };
  return `${JSON.stringify(rewrite(document), null, 2)}\n`;
}

async function main(): Promise<void> {
  const argument = (flag: string): string | undefined => {
    const index = process.argv.indexOf(flag);
    return index === -1 ? undefined : process.argv[index + 1];
  };
  const python = argument("--python");
  const requirements = argument("--requirements") ?? "requirements.txt";
  const names = pythonGoldenNames.filter((name) => apps[name].requirements === requirements);
  if (names.length === 0) {
    const files = [...new Set(pythonGoldenNames.map((name) => apps[name].requirements))].join(", ");
    console.error(`no Python golden is recorded with ${requirements}: give --requirements one of ${files} (requirements.txt by default)`);
    process.exitCode = 2;
    return;
  }
  if (python === undefined) {
    console.error(`give the Python with test/golden/python/${requirements} installed: --python /path/to/venv/bin/python`);
    process.exitCode = 2;
    return;
  }
  const sendTo = argument("--send-to");
  for (const name of names) {
    if (sendTo !== undefined) {
      await runApp(python, name, ["--endpoint", sendTo]);
      console.log(`${name}: sent to ${sendTo}`);
      continue;
    }
    await checkOrWriteGolden(name, await recordPythonGolden(python, name), process.argv.includes("--write"));
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
