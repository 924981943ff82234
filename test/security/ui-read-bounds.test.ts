/**
 * The web UI's read API refuses queries whose answer has no bound, with 400
 * and a message that says the limit and how to fix the query, instead of
 * working for tens of seconds and gigabytes (and stalling the OTLP receiver
 * in the same process) or failing with 500:
 *
 * - the Quality and Failures boards (pages and API): a range outside
 *   1970-01-01 … five years after the server's clock, and a range that even
 *   30-day buckets cut into more than MAXIMUM_BOARD_BUCKETS buckets;
 * - their default range, when a sender's broken clock stored requests at the
 *   epoch and in years 2262 and 2554: cut to the same times;
 * - the traces list's metric bounds (below=, above=) beyond ±10^12, which the
 *   engine's client refused to send (500 "unsafe integer").
 *
 * The spans go through the embedded collector's OTLP receiver; the UI server
 * is the one `ragscope serve` starts, on the collector's store, with its
 * clock injected so the allowed range is fixed.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { BUCKET_WIDTHS, MAXIMUM_BOARD_BUCKETS } from "../../ui/pages/board-query.js";
import { MAXIMUM_METRIC_BOUND } from "../../ui/pages/trace-query.js";
import type { UiServer } from "../../ui/ui-server.js";
import { recordAttack } from "../support/attack-report.js";
import type { CollectorForTests } from "../support/embedded-collector-for-tests.js";
import { collectorWithRequests, getAs, uiAt, type SentRequest } from "../support/ui-over-stored-requests.js";
import { plannedCaseResult } from "../support/stored-requests.js";

const TOKEN = "ui-token-of-the-reviewer-0b3f";
/** The server's clock: the board reads times up to five years after it. */
const NOW = Date.parse("2026-07-08T12:00:00.000Z");
const LATEST = Date.parse("2031-07-08T12:00:00.000Z");
/** A clock far enough ahead that 1970 … five years after it needs more buckets than a board may have, even 30-day ones. */
const FAR_NOW = Date.parse("2100-01-01T00:00:00.000Z");
const WIDEST_BUCKET_SECONDS = BUCKET_WIDTHS[BUCKET_WIDTHS.length - 1]!;

/**
 * Start times of the requests sent, in OTLP nanoseconds: a sane one and two from clocks far ahead. A third broken
 * clock's request, at the epoch, is written straight into the store (below): the receiver and the Kafka evaluator
 * refuse spans before 2000, but a store an earlier release wrote may hold one.
 */
const SENT: SentRequest[] = [
  ["c0000000000000000000000000000001", "1783500000000000000"], // 2026-07-08T08:40Z
  ["c0000000000000000000000000000003", "9223372036854775000"], // 2262-04-11
  ["c0000000000000000000000000000004", "18446744073709551000"], // 2554-07-21
];

interface BoardAnswer {
  scope: { fromMs: number; toMs: number; bucketSeconds: number };
  board: { times: number[] };
}

describe("the web UI's read API bounds what one query may ask for", () => {
  let collector: CollectorForTests | null = null;
  let ui: UiServer | null = null;
  let farUi: UiServer | null = null;

  before(async () => {
    // The receiver rejects spans more than an hour ahead of its clock; such times still reach a store through a
    // Collector writing straight to Kafka, or from before that bound. This collector allows them (~630 years).
    collector = await collectorWithRequests(SENT, "bounds-bot", { "receiver.maxFutureSpanSeconds": 20_000_000_000 });
    const atTheEpoch = plannedCaseResult({ caseResultId: "cr_at_the_epoch", traceId: "c0000000000000000000000000000002", service: "bounds-bot", startedAtMs: 0 });
    const written = await collector.collector.store.results.write([{ caseResult: atTheEpoch, evaluationResults: [] }]);
    assert.ok(written.ok, written.ok ? "" : written.error.message);
    const stored = await collector.collector.store.reader.storedSpan();
    // The broken clocks' requests stretch the stored span from the epoch to year 2554.
    assert.equal(stored?.firstMs, 0);
    assert.equal(new Date(stored!.lastMs).getUTCFullYear(), 2554);
    ui = await uiAt(collector, TOKEN, NOW);
    farUi = await uiAt(collector, TOKEN, FAR_NOW);
  });

  after(async () => {
    await ui?.close();
    await farUi?.close();
    await collector?.stop();
  });

  const get = (server: UiServer, address: string) => getAs(server, TOKEN, address);

  const boardAddresses = ["/api/quality", "/api/failures", "/quality", "/failures"];
  const outsideRanges: [what: string, query: string][] = [
    ["the widest dates JavaScript has", "from=-271821-04-20T00:00:00Z&to=%2B275760-09-13T00:00:00Z"],
    ["±20,000 years", "from=-018000-01-01T00:00:00Z&to=%2B022000-01-01T00:00:00Z"],
    ["a from before 1970", "from=1969-12-31T23:59&to=2026-07-08T00:00"],
    ["a to more than five years ahead", "from=2026-07-08T00:00&to=2031-07-08T12:01"],
  ];

  for (const [what, query] of outsideRanges) {
    test(`a board range with ${what} is refused with 400, naming the times a board reads`, async () => {
      for (const address of boardAddresses) {
        const answer = await get(ui!, `${address}?${query}`);
        assert.equal(answer.status, 400, `${address}?${query}: ${answer.body.slice(0, 300)}`);
        assert.match(answer.body, /outside the times a board reads: from 1970-01-01T00:00 to 2031-07-08T12:00 UTC/, `${address}?${query}`);
        if (address.startsWith("/api/")) assert.match((JSON.parse(answer.body) as { error: string }).error, /^(from|to)=/);
        else assert.match(answer.body, /<p class="error" id="error">/);
      }
      recordAttack({ attack: `UI board range: ${what}`, outcome: "400, the allowed times named" });
    });
  }

  test("the default range is the stored span cut to 1970 … five years ahead, though broken clocks stored requests in 2262 and 2554; that widest range is drawn in 30-day buckets", async () => {
    for (const address of ["/api/quality", "/api/failures", "/api/quality?from=1970-01-01T00:00Z&to=2031-07-08T12:00Z", "/api/failures?from=1970-01-01T00:00Z&to=2031-07-08T12:00Z"]) {
      const answer = await get(ui!, address);
      assert.equal(answer.status, 200, answer.body.slice(0, 300));
      const { scope, board } = JSON.parse(answer.body) as BoardAnswer;
      assert.deepEqual(scope, { fromMs: 0, toMs: LATEST, bucketSeconds: WIDEST_BUCKET_SECONDS }, address);
      assert.ok(board.times.length <= MAXIMUM_BOARD_BUCKETS, `${address}: ${board.times.length} buckets`);
    }
    for (const address of ["/quality", "/failures"]) {
      const answer = await get(ui!, address);
      assert.equal(answer.status, 200, address);
      assert.match(answer.body, /1970-01-01T00:00 – 2031-07-08T12:00 UTC, one point per 30 days/, address);
    }
    recordAttack({ attack: "UI board default range over requests stamped 1970 and 2554", outcome: "cut to 1970 … now + 5 years" });
  });

  test("a range that even 30-day buckets cut into more than the maximum is refused with 400, saying the limit and to narrow from/to; the default range is cut to fit", async () => {
    // With the clock in 2100 the allowed times run from 1970 to 2105: 1,600 buckets of 30 days.
    for (const address of boardAddresses) {
      const answer = await get(farUi!, `${address}?from=1970-01-01T00:00Z&to=2104-12-31T00:00Z`);
      assert.equal(answer.status, 400, `${address}: ${answer.body.slice(0, 300)}`);
      assert.match(answer.body, new RegExp(`needs \\d+ buckets of 30 days, the widest; a board has at most ${MAXIMUM_BOARD_BUCKETS}: narrow from/to to at most 82 years`), address);
    }
    // The default range on that clock would be the same span: it keeps its latest buckets and is drawn.
    const latestOnFarClock = Date.parse("2105-01-01T00:00:00.000Z");
    for (const address of ["/api/quality", "/api/failures"]) {
      const answer = await get(farUi!, address);
      assert.equal(answer.status, 200, `${address}: ${answer.body.slice(0, 300)}`);
      const { scope, board } = JSON.parse(answer.body) as BoardAnswer;
      assert.deepEqual(scope, { fromMs: latestOnFarClock - (MAXIMUM_BOARD_BUCKETS - 1) * WIDEST_BUCKET_SECONDS * 1000, toMs: latestOnFarClock, bucketSeconds: WIDEST_BUCKET_SECONDS }, address);
      assert.ok(board.times.length <= MAXIMUM_BOARD_BUCKETS, `${address}: ${board.times.length} buckets`);
    }
    recordAttack({ attack: "UI board range of 135 years", outcome: `400, at most ${MAXIMUM_BOARD_BUCKETS} buckets` });
  });

  test("a metric bound beyond ±10^12 is refused with 400 naming the range, on the list page, its rows and the API; bounds within it are answered", async () => {
    for (const bound of ["below=10000000000000000", "above=-10000000000000000", "below=9007199254740993", `above=1${"0".repeat(300)}`, `below=${MAXIMUM_METRIC_BOUND * 10}`]) {
      for (const address of ["/api/traces", "/traces", "/traces/rows"]) {
        const answer = await get(ui!, `${address}?metric=context_recall&${bound}`);
        assert.equal(answer.status, 400, `${address}?${bound}: ${answer.body.slice(0, 300)}`);
        assert.match(answer.body, new RegExp(`${bound.split("=")[0]}=\\S+: give a number from -${MAXIMUM_METRIC_BOUND} to ${MAXIMUM_METRIC_BOUND} in digits`), address);
      }
      recordAttack({ attack: `UI metric bound ${bound.length > 40 ? `${bound.slice(0, 12)}… (${bound.length - 6} digits)` : bound}`, outcome: "400, the range named" });
    }
    // The largest and the smallest magnitudes allowed reach the engine and are answered.
    for (const bound of ["below=0.5", `below=${MAXIMUM_METRIC_BOUND}`, `above=-${MAXIMUM_METRIC_BOUND}`, `above=0.${"0".repeat(323)}5`, `below=0.${"0".repeat(299)}1`]) {
      const answer = await get(ui!, `/api/traces?metric=context_recall&${bound}`);
      assert.equal(answer.status, 200, `${bound}: ${answer.body.slice(0, 300)}`);
    }
  });
});
