/**
 * A label import may be as large as its bounds (20 MiB, 100,000 lines) without
 * holding `ragscope serve`'s one thread, which the OTLP receiver shares. Any
 * reviewer's token may import, so a tenant's reviewer must not be able to stop
 * every tenant's ingest with one file.
 *
 * Found by sending one 14 MB file of 99,999 labels to `POST /api/labels.jsonl`
 * as a tenant's reviewer: serve's /healthz, its receiver and its UI answered
 * nothing for minutes. Two causes, each checked here by counting the work it
 * does on a file, not by timing it:
 * - ui/review/imported-passes.ts filtered every stored and imported label for
 *   each (case, reviewer) pair of the file: 100,000 pairs × 100,000 labels;
 * - ui/review/labels-jsonl.ts built the line schema (`.omit()`) inside its
 *   loop, and zod compiles each new schema with `new Function` on its first
 *   parse: a compilation per line, ~15 s for the file.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { newHumanLabel, type HumanLabel } from "../../evaluators/judge/calibration/human-label.js";
import { checkImportedPasses } from "../../ui/review/imported-passes.js";
import { labelsFromJsonl } from "../../ui/review/labels-jsonl.js";
import { recordAttack } from "../support/attack-report.js";

const LABELS = 2_000;

/** `labels` as an array that counts how many of its elements are read. */
function countingReads(labels: HumanLabel[]): { array: HumanLabel[]; reads: () => number } {
  let reads = 0;
  const array = new Proxy(labels, {
    get(target, property, receiver) {
      if (typeof property === "string" && /^\d+$/.test(property)) reads += 1;
      return Reflect.get(target, property, receiver);
    },
  });
  return { array, reads: () => reads };
}

describe("a label import of many lines costs work in proportion to its lines", () => {
  test("the pass check reads each stored and imported label a bounded number of times, not once per case of the file", async () => {
    const label = (index: number, verdict: "pass" | "fail") =>
      newHumanLabel({ case_result_id: `case-result-${index}`, trace_id: "0af7651916cd43dd8448eb211c80319c", metric: "faithfulness", labeler_id: "alice", verdict, labeled_at: "2026-01-02T00:00:00.000Z" });
    const stored = countingReads(Array.from({ length: LABELS }, (_, index) => label(index, "fail")));
    const imported = countingReads(Array.from({ length: LABELS }, (_, index) => label(LABELS + index, "pass")));
    const checked = await checkImportedPasses(imported.array, stored.array, async () => ["faithfulness"]);
    assert.equal(checked.ok, true, JSON.stringify(checked));
    // Each label a few times (grouping, counting); the filter per pair read each 2,000 times (4,000,000 reads).
    assert.ok(stored.reads() <= 4 * LABELS, `the stored labels were read ${stored.reads()} times for ${LABELS} labels`);
    assert.ok(imported.reads() <= 4 * LABELS, `the imported labels were read ${imported.reads()} times for ${LABELS} labels`);
    recordAttack({ attack: `UI: label import whose ${LABELS} lines each name another case (pass check per case)`, outcome: `each label read ≤ 4 times (was ${LABELS} times each)` });
  });

  test("parsing a file compiles no schema per line", () => {
    const text = Array.from({ length: LABELS }, (_, index) => JSON.stringify({ case_result_id: `case-result-${index}`, metric: "faithfulness", verdict: "pass" })).join("\n");
    // zod compiles a schema's fast path with `new Function` (zod/v4/core/doc.js reads the global each time).
    const original = globalThis.Function;
    let compiled = 0;
    globalThis.Function = new Proxy(original, {
      construct(target, parameters, newTarget) {
        compiled += 1;
        return Reflect.construct(target, parameters, newTarget) as object;
      },
    });
    try {
      labelsFromJsonl("", { reviewer: "alice", authenticated: true, importedAt: "2026-01-02T00:00:00.000Z" });
      const parsed = labelsFromJsonl(text, { reviewer: "alice", authenticated: true, importedAt: "2026-01-02T00:00:00.000Z" });
      assert.equal(parsed.ok && parsed.value.labels.length, LABELS);
    } finally {
      globalThis.Function = original;
    }
    assert.ok(compiled <= 10, `${compiled} functions compiled for ${LABELS} lines`);
    recordAttack({ attack: `UI: label import of ${LABELS} lines (a schema compiled per line)`, outcome: `${compiled} compilations for the file` });
  });
});

describe("a label import's note", () => {
  const author = { reviewer: "alice", authenticated: true, importedAt: "2026-07-08T10:00:00.000Z" };
  const line = (note: string) => JSON.stringify({ case_result_id: "case-result-1", metric: "faithfulness", verdict: "fail", note });

  test("is held to the 4,000 characters the review form keeps: a longer one refuses the file with its line, none of it cut unsaid", () => {
    const refused = labelsFromJsonl(`${line("ok")}\n${line("x".repeat(4001))}\n`, author);
    assert.equal(refused.ok, false);
    assert.match(refused.ok ? "" : refused.error, /^line 2: note is 4,001 characters, more than the 4,000 a review keeps/);
    const accepted = labelsFromJsonl(line("x".repeat(4000)), author);
    assert.ok(accepted.ok, accepted.ok ? "" : accepted.error);
    assert.equal(accepted.value.labels[0]!.note.length, 4000);
  });
});
