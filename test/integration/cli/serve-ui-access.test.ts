/** `ragscope serve` refuses to serve the UI on a non-loopback address without a reviewer token, and says how to fix it. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const binary = fileURLToPath(new URL("../../../bin/ragscope.js", import.meta.url));

function serve(args: string[], environment: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [binary, "serve", "--port", "0", "--metrics-port", "0", ...args], { env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "", ...environment }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("exit", (code) => resolve({ code, output }));
  });
}

test("a non-loopback UI address without a token: serve does not start, exit 2, and says how to fix it", async () => {
  const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-ui-access-"));
  try {
    const result = await serve(["--ui-host", "0.0.0.0", "--ui-port", "0", "--data-dir", path.join(folder, "chdb")], { RAGSCOPE_UI_TOKENS: "" });
    assert.equal(result.code, 2, result.output);
    assert.match(result.output, /the web UI did not start: the UI would listen on 0\.0\.0\.0, which is not a loopback address, without a token: set RAGSCOPE_UI_TOKENS=/);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
});

test("a malformed token list: serve does not start and names the entry", async () => {
  const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-ui-access-"));
  try {
    const result = await serve(["--ui-port", "0", "--data-dir", path.join(folder, "chdb")], { RAGSCOPE_UI_TOKENS: "alice=short" });
    assert.equal(result.code, 2, result.output);
    assert.match(result.output, /RAGSCOPE_UI_TOKENS: the token of "alice" is shorter than 16 characters/);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
});

test("a UI tenant token given as the token itself, not its SHA-256, or naming a malformed tenant: serve does not start and says how to fix it", async () => {
  const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-ui-access-"));
  try {
    for (const [value, expected] of [
      ["alice:acme=plain-token-0123456789", /RAGSCOPE_UI_TENANT_TOKENS: entry 1: give the SHA-256 of the token as 64 lowercase hex digits \(printf %s "\$TOKEN" \| sha256sum\), not the token/],
      [`alice:acme corp=${"a".repeat(64)}`, /RAGSCOPE_UI_TENANT_TOKENS: entry 1: the tenant "acme corp" is not 1 to 128 letters/],
      [`alice=${"a".repeat(64)}`, /RAGSCOPE_UI_TENANT_TOKENS: entry 1 is not "reviewer:tenant=<sha256 of the token>"/],
    ] as const) {
      const result = await serve(["--ui-port", "0", "--data-dir", path.join(folder, "chdb")], { RAGSCOPE_UI_TENANT_TOKENS: value });
      assert.equal(result.code, 2, result.output);
      assert.match(result.output, expected);
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
});

test('a token named "local", the anonymous reviewer of the UI without tokens whose labels count toward no review: serve does not start and says why', async () => {
  const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-ui-access-"));
  try {
    for (const [variable, value, expected] of [
      ["RAGSCOPE_UI_TOKENS", "alice=alice-token-0123456789abcdef,local=local-token-0123456789abcdef", /RAGSCOPE_UI_TOKENS: entry 2: the reviewer "local" is the anonymous reviewer of the UI without tokens, whose labels never count toward a review; give the token another name/],
      ["RAGSCOPE_UI_TENANT_TOKENS", `local:acme=${"a".repeat(64)}`, /RAGSCOPE_UI_TENANT_TOKENS: entry 1: the reviewer "local" is the anonymous reviewer of the UI without tokens/],
    ] as const) {
      const result = await serve(["--ui-port", "0", "--data-dir", path.join(folder, "chdb")], { [variable]: value });
      assert.equal(result.code, 2, result.output);
      assert.match(result.output, expected);
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
});
