/**
 * The judge's base URL is shown in `serve`'s start line ("LLM judge … at …"):
 * its userinfo and secret-looking query parameters are masked there.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createConfiguredJudge, judgeEndpointSection } from "../../../collector/wiring/online/judge-config.js";
import { redactUrl } from "../../../core/redact-url.js";

describe("redactUrl", () => {
  test("userinfo is masked (the password; a user name given alone), host, port and path stay", () => {
    assert.equal(redactUrl("http://qauser:sk-URLSECRET@127.0.0.1:18901/v1"), "http://qauser:********@127.0.0.1:18901/v1");
    assert.equal(redactUrl("https://ghp_TOKEN@gateway.example/v1"), "https://********@gateway.example/v1");
  });

  test("secret-looking query parameters are masked, others stay", () => {
    const shown = redactUrl("https://gw.example/v1?api-key=sk-Q1&key=K2&token=T3&secret=S4&password=P5&access_token=A6&sig=G7&X-Api-Key=H8&client_secret=C9&deployment=d1&monkey=m");
    for (const secret of ["sk-Q1", "K2", "T3", "S4", "P5", "A6", "G7", "H8", "C9"]) assert.equal(shown.includes(secret), false, `${secret} in ${shown}`);
    assert.match(shown, /deployment=d1/);
    assert.match(shown, /monkey=m/);
    assert.match(shown, /^https:\/\/gw\.example\/v1\?api-key=\*{8}&/);
  });

  test("a URL without credentials, and text that is not a URL, are unchanged", () => {
    for (const text of ["http://127.0.0.1:8080/v1", "https://api.openai.com/v1?api-version=2024-10-21", "localhost:8080", ""]) assert.equal(redactUrl(text), text);
  });
});

describe("the configured judge's start line", () => {
  test("does not print the base URL's password or secret query values", () => {
    for (const baseUrl of ["http://qauser:sk-URLSECRET@127.0.0.1:18901/v1", "http://127.0.0.1:18901/v1?api-key=sk-URLSECRET"]) {
      const configured = createConfiguredJudge(judgeEndpointSection.parse({ baseUrl, model: "m" }));
      assert.equal(configured.describe.includes("sk-URLSECRET"), false, configured.describe);
      assert.match(configured.describe, /^LLM judge m at http:\/\/.*127\.0\.0\.1:18901\/v1/);
    }
  });
});
