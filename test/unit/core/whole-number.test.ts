/**
 * The one reading of a whole number from a flag or a variable: decimal digits and nothing else, so a form `Number`
 * would also read (hex, exponent, point, spaces, empty) is refused rather than taken as a number nobody wrote.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseWholeNumber, readWholeNumber } from "../../../core/whole-number.js";

describe("whole numbers written in decimal digits", () => {
  test("digits are read as the number they write, leading zeros included", () => {
    assert.equal(readWholeNumber("0"), 0);
    assert.equal(readWholeNumber("4318"), 4318);
    assert.equal(readWholeNumber("007"), 7);
    assert.equal(readWholeNumber("9007199254740991"), Number.MAX_SAFE_INTEGER);
  });

  test("every other form Number would read is refused", () => {
    for (const text of ["0x10", "1e3", " 8", "8 ", "8.0", "+8", "-1", "", "0b11", "0o7", "Infinity", "1_000", "٣", "9007199254740993"]) {
      assert.equal(readWholeNumber(text), null, JSON.stringify(text));
    }
  });

  test("the range is checked, and the error says what is accepted and quotes text in another form", () => {
    const range = { minimum: 1, maximum: 1_000, why: "cases run at once" };
    assert.deepEqual(parseWholeNumber("1000", range), { ok: true, value: 1_000 });
    assert.deepEqual(parseWholeNumber("0", range), { ok: false, error: "must be at least 1 (cases run at once)" });
    assert.deepEqual(parseWholeNumber("1001", range), { ok: false, error: "must be at most 1000 (cases run at once)" });
    assert.deepEqual(parseWholeNumber("1e3", range), {
      ok: false,
      error: 'must be a whole number from 1 to 1000 (cases run at once) in decimal digits only (no sign, point, exponent, hex or spaces), not "1e3"',
    });
    assert.deepEqual(parseWholeNumber("5", { minimum: 6 }), { ok: false, error: "must be at least 6" });
    assert.deepEqual(parseWholeNumber("x", { minimum: 0 }), { ok: false, error: 'must be a whole number of at least 0 in decimal digits only (no sign, point, exponent, hex or spaces), not "x"' });
  });
});
