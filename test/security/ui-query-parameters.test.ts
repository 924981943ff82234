/**
 * The web UI reads its query parameters in the forms ui/README.md documents and refuses any other with 400 naming
 * the parameter (ui/routing/query-parameters.ts), on the traces list, its rows, the review queue, the Quality and
 * Failures boards and their API alike. Each case here was answered 200 as something nobody asked for:
 *
 * - a date that does not exist (2026-02-30) was rolled over to March 2, and a board then said "the time range is
 *   empty" of from=2026-02-30&to=2026-03-02;
 * - from=0 and from=-1 were read as the years 2000 and 2001 (while from=1e3 was refused);
 * - limit=0x3 and limit=1e2, though the error asked for "a whole number";
 * - the traces list's metric bounds below=0x1 (read as 1), below=1e3 (as 1000), above=+1 and below=.5;
 * - a parameter given twice: the first value won (limit=1&limit=500 listed one row, limit=500&limit=1 was refused).
 *
 * Over HTTP to the UI server `ragscope serve` starts, on the embedded collector's store, with two requests sent
 * through its OTLP receiver and the server's clock fixed so that the boards' range is known.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { UiServer } from "../../ui/ui-server.js";
import { recordAttack } from "../support/attack-report.js";
import type { CollectorForTests } from "../support/embedded-collector-for-tests.js";
import { collectorWithRequests, getAs, uiAt, type SentRequest } from "../support/ui-over-stored-requests.js";

const TOKEN = "ui-token-of-the-reviewer-7c1d";
const NOW = Date.parse("2026-07-08T12:00:00.000Z");
/** Two requests, on 2026-07-08 at 08:40 and 08:41 UTC. */
const SENT: SentRequest[] = [
  ["d0000000000000000000000000000001", "1783500000000000000"],
  ["d0000000000000000000000000000002", "1783500060000000000"],
];
/** Every route that reads from/to, as a page and as the API. */
const TIME_ADDRESSES = ["/api/traces", "/traces", "/traces/rows", "/api/review", "/review", "/api/quality", "/quality", "/api/failures", "/failures"];
/** Every route that reads limit. */
const LIMIT_ADDRESSES = ["/api/traces", "/traces", "/traces/rows", "/api/review", "/review"];

describe("the web UI reads its query parameters in the documented forms, and refuses any other naming the parameter", () => {
  let collector: CollectorForTests | null = null;
  let ui: UiServer | null = null;

  before(async () => {
    collector = await collectorWithRequests(SENT, "parameters-bot");
    ui = await uiAt(collector, TOKEN, NOW);
  });

  after(async () => {
    await ui?.close();
    await collector?.stop();
  });

  const get = (address: string) => getAs(ui!, TOKEN, address);

  /** The error as the answer says it: the API's JSON `error`, a page's or the rows' text. */
  function errorOf(address: string, body: string): string {
    if (address.startsWith("/api/")) return (JSON.parse(body) as { error: string }).error;
    return body.replaceAll("&#39;", "'").replaceAll("&quot;", '"').replaceAll("&amp;", "&");
  }

  async function assertRefused(address: string, expected: RegExp): Promise<void> {
    const answer = await get(address);
    assert.equal(answer.status, 400, `${address}: ${answer.body.slice(0, 300)}`);
    assert.match(errorOf(address, answer.body), expected, address);
  }

  test("a date or time that does not exist is 400 saying so and naming the parameter, never rolled over into the next month or day", async () => {
    const impossible: [query: string, expected: RegExp][] = [
      ["from=2026-02-30T00:00Z", /from=2026-02-30T00:00Z: the date 2026-02-30 does not exist \(February 2026 has 28 days\)/],
      ["to=2026-02-29T10:00", /to=2026-02-29T10:00: the date 2026-02-29 does not exist \(February 2026 has 28 days\)/],
      ["from=2026-04-31", /from=2026-04-31: the date 2026-04-31 does not exist \(April 2026 has 30 days\)/],
      ["from=2026-13-01T00:00Z", /from=2026-13-01T00:00Z: the date does not exist, there is no month 13/],
      ["from=2026-07-08T24:00Z", /from=2026-07-08T24:00Z: the time does not exist, hours run from 00 to 23/],
      ["to=2026-07-08T09:60", /to=2026-07-08T09:60: the time does not exist, minutes run from 00 to 59/],
    ];
    for (const [query, expected] of impossible) for (const address of TIME_ADDRESSES) await assertRefused(`${address}?${query}`, expected);
    // The audit's board range: the impossible date is named, not the range called empty.
    for (const address of ["/api/quality", "/api/failures", "/quality", "/failures"]) {
      const answer = await get(`${address}?from=2026-02-30T00:00Z&to=2026-03-02T00:00Z`);
      assert.equal(answer.status, 400, address);
      assert.match(errorOf(address, answer.body), /from=2026-02-30T00:00Z: the date 2026-02-30 does not exist/, address);
      assert.doesNotMatch(answer.body, /time range is empty/, address);
    }
    // 2028 is a leap year: its 29 February exists.
    const leapDay = await get("/api/traces?from=2028-02-29T00:00Z");
    assert.equal(leapDay.status, 200, leapDay.body.slice(0, 300));
    recordAttack({ attack: "UI time that does not exist (2026-02-30, 24:00)", outcome: "400 naming the parameter and what does not exist" });
  });

  test("numbers are not times: from=0, -1, 1e3 and epoch milliseconds are 400 saying the forms to write, on every route alike", async () => {
    for (const value of ["0", "-1", "1e3", "1783500000000", "2026", "now-6h", "July 8, 2026"]) {
      for (const address of TIME_ADDRESSES) await assertRefused(`${address}?from=${encodeURIComponent(value)}`, new RegExp(`from=${value.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")} is not a time: write 2026-07-08T09:30 \\(UTC\\), or an ISO 8601 date and time with a zone`));
    }
    recordAttack({ attack: "UI time given as a number (0, -1, 1e3, epoch ms)", outcome: "400 naming the forms taken" });
  });

  test("the documented forms are read as the same instant on every route: a minute in UTC, seconds and fractions, a zone, a date", async () => {
    const sameInstant = ["2026-07-08T08:00", "2026-07-08T08:00Z", "2026-07-08T08:00:00.000Z", "2026-07-08T10:00+02:00", "2026-07-08T10:00+0200", "2026-07-08T03:00-05:00"];
    for (const from of sameInstant) {
      for (const address of TIME_ADDRESSES) {
        const answer = await get(`${address}?from=${encodeURIComponent(from)}&to=2026-07-08T09:00Z`);
        assert.equal(answer.status, 200, `${address}?from=${from}: ${answer.body.slice(0, 300)}`);
      }
      const listed = JSON.parse((await get(`/api/traces?from=${encodeURIComponent(from)}`)).body) as { traces: unknown[] };
      assert.equal(listed.traces.length, SENT.length, from);
      const board = JSON.parse((await get(`/api/quality?from=${encodeURIComponent(from)}&to=2026-07-08T09:00Z`)).body) as { scope: { fromMs: number } };
      assert.equal(board.scope.fromMs, Date.parse("2026-07-08T08:00:00.000Z"), from);
    }
    const dayOnly = JSON.parse((await get("/api/quality?from=2026-07-08&to=2026-07-08T09:00Z")).body) as { scope: { fromMs: number } };
    assert.equal(dayOnly.scope.fromMs, Date.parse("2026-07-08T00:00:00.000Z"));
  });

  test("limit takes decimal digits only: 0x3, 1e2, 3.0 and +3 are 400 asking for a whole number; 1 lists one row", async () => {
    for (const value of ["0x3", "1e2", "3.0", "+3", "0b11", "Infinity"]) {
      for (const address of LIMIT_ADDRESSES) await assertRefused(`${address}?limit=${encodeURIComponent(value)}`, /limit=\S+: give a whole number from 1 to 200 in decimal digits/);
    }
    const one = JSON.parse((await get("/api/traces?limit=1")).body) as { traces: unknown[] };
    assert.equal(one.traces.length, 1);
    recordAttack({ attack: "UI limit=0x3, limit=1e2", outcome: "400, decimal digits only" });
  });

  test("below= and above= take plain decimal numbers only: 0x1, 1e3, Infinity, +1 and .5 are 400 naming the parameter and the form; 0.5, -1 and 250 are read", async () => {
    for (const value of ["0x1", "1e3", "1E-2", "Infinity", "-Infinity", "NaN", "+1", ".5", "5.", "0b1", "1_000", "1,5", "½"]) {
      for (const name of ["below", "above"]) {
        for (const address of LIMIT_ADDRESSES) {
          await assertRefused(`${address}?metric=context_recall&${name}=${encodeURIComponent(value)}`, new RegExp(`${name}=\\S+: give a number from -1000000000000 to 1000000000000 in digits with an optional leading minus and fraction, e\\.g\\. 0\\.5 \\(no exponent, hex, \\+ or Infinity\\)`));
        }
      }
    }
    recordAttack({ attack: "UI metric bound below=0x1, below=1e3, above=+1", outcome: "400 naming the parameter, plain decimal only" });
    // The page keeps serving, and the documented forms are read: a fraction, a whole number, a minus, the form's blank field (no bound).
    for (const query of ["below=0.5", "below=1", "above=-1", "above=250", "below=12.75&above=0.25", "below=&above=0.5"]) {
      for (const address of LIMIT_ADDRESSES) {
        const answer = await get(`${address}?metric=context_recall&${query}`);
        assert.equal(answer.status, 200, `${address}?${query}: ${answer.body.slice(0, 300)}`);
      }
    }
  });

  test("the experiment report's alpha, power and mde take a plain decimal between 0 and 1: 1e-2, 0x0, +0.5 and .05 are 400 naming the setting; a blank field is the default", async () => {
    for (const value of ["1e-2", "5E-2", "0x0", "+0.5", ".05", "0.", "Infinity", "0b1"]) {
      for (const name of ["alpha", "power", "mde"]) {
        for (const address of ["/api/experiments/no-such-experiment", "/experiments/no-such-experiment"]) {
          await assertRefused(`${address}?${name}=${encodeURIComponent(value)}`, new RegExp(`${name} takes a number between 0 and 1 \\(exclusive\\) in digits with an optional leading minus and fraction, e\\.g\\. 0\\.5 \\(no exponent, hex, \\+ or Infinity\\), got "${value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}"`));
        }
      }
    }
    // A plain decimal out of range still says the range; the documented forms and the form's blank fields get past
    // the settings to the experiment, which this store does not hold (404).
    await assertRefused("/api/experiments/no-such-experiment?alpha=1", /alpha takes a number between 0 and 1 \(exclusive\), got "1"/);
    for (const query of ["alpha=0.01&power=0.9&mde=0.05", "alpha=&power=&mde=", "alpha=%200.05%20"]) {
      const answer = await get(`/api/experiments/no-such-experiment?${query}`);
      assert.equal(answer.status, 404, `${query}: ${answer.body.slice(0, 300)}`);
    }
    recordAttack({ attack: "UI experiment report alpha=1e-2, mde=0x0", outcome: "400 naming the setting, plain decimal only" });
  });

  test("a parameter given twice is 400 naming it, whichever value comes first, on pages and the API", async () => {
    const repeated: [query: string, name: string][] = [
      ["limit=1&limit=500", "limit"],
      ["limit=500&limit=1", "limit"],
      ["service=a&service=b", "service"],
      ["service=parameters-bot&service=parameters-bot", "service"],
      ["from=2026-07-08T08:00Z&from=2026-07-08T08:30Z", "from"],
      ["to=2026-07-08T09:00Z&verdict=failed&to=2026-07-08T10:00Z", "to"],
    ];
    for (const [query, name] of repeated) {
      for (const address of [...TIME_ADDRESSES, "/runs/compare", "/api/runs/compare"]) await assertRefused(`${address}?${query}`, new RegExp(`^(?:[^]*<p class="error" id="error">)?${name} is given 2 times \\(${name}=[^)]*\\): give ${name} once`));
    }
    const trace = await get(`/api/traces/${SENT[0]![0]}?trace=${SENT[0]![0]}&trace=${SENT[1]![0]}`);
    assert.equal(trace.status, 400, trace.body.slice(0, 300));
    assert.match(errorOf("/api/", trace.body), /trace is given 2 times .*: give trace once/);
    // weight=variant=w is read once per variant (ui/README.md): repeating it is the form, not an error.
    const weights = await get("/api/experiments/no-such-experiment?weight=a=1&weight=b=1");
    assert.equal(weights.status, 404, weights.body.slice(0, 300));
    recordAttack({ attack: "UI parameter given twice (limit=1&limit=500, service=a&service=b)", outcome: "400 naming the parameter" });
  });
});
