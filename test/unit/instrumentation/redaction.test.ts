/**
 * Client-side redaction: every default pattern in Chinese and English text,
 * and values that look alike but fail the check (not redacted).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ExportResultCode } from "@opentelemetry/core";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { SpanStatusCode } from "@opentelemetry/api";
import { RedactingSpanExporter, createRedactor, isStructuralAttribute } from "../../../instrumentation/index.js";
import { isChineseResidentId, passesLuhn } from "../../../instrumentation/redaction/checksums.js";
import { findSensitiveData } from "../../../core/sensitive-data.js";

const redactor = createRedactor();
const redact = (text: string) => redactor.redact(text);

interface PatternCase {
  name: string;
  values: string[];
  lookAlikes: string[];
  chinese: (value: string) => string;
  english: (value: string) => string;
}

const privateKey = ["-----BEGIN RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB", "aFDrBz9vFqU4yB6Z0ZKqFQ2kCwIDAQABAoIBAFakeKeyMaterialOnly==", "-----END RSA PRIVATE KEY-----"].join("\n");

const cases: PatternCase[] = [
  {
    name: "id_card",
    // GB 11643 check characters hold for these (one ends in X).
    values: ["110101199003074514", "11010519491231002X", "440308199901010012"],
    // Wrong check digit (and not Luhn-valid either), an impossible date, 17 digits.
    lookAlikes: ["110101199003074513", "110101199002304516", "11010119900307451"],
    chinese: (value) => `申请人身份证号${value}，请核对。`,
    english: (value) => `The applicant's ID number is ${value}.`,
  },
  {
    name: "phone",
    values: ["13812345678", "+86 138 1234 5678", "199-8765-4321"],
    // Second digit 2, twelve digits, a landline.
    lookAlikes: ["12812345678", "138123456789", "010-62345678"],
    chinese: (value) => `请拨打手机${value}联系我。`,
    english: (value) => `Call me on ${value} tomorrow.`,
  },
  {
    name: "bank_card",
    values: ["6222021234567890128", "4111 1111 1111 1111", "6217-0012-3456-7893"],
    // Luhn fails on each.
    lookAlikes: ["6222021234567890123", "4111 1111 1111 1112", "6217001234567890"],
    chinese: (value) => `退款打到银行卡${value}。`,
    english: (value) => `Refund to card ${value} please.`,
  },
  {
    name: "email",
    values: ["zhang.san@example.com", "ops+alerts@corp.example.co.uk"],
    lookAlikes: ["user@localhost", "@example.com", "name@.com"],
    chinese: (value) => `邮箱：${value}，谢谢。`,
    english: (value) => `Write to ${value} for access.`,
  },
  {
    name: "api_key",
    values: [
      "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345",
      "ghp_0123456789abcdefghijABCDEFGHIJ012345",
      "AKIAIOSFODNN7EXAMPLE",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ],
    // Too short, an ordinary hyphenated word, a 19-character AWS-like id.
    lookAlikes: ["sk-short", "task-force-readiness", "AKIAIOSFODNN7EXAMPL"],
    chinese: (value) => `配置里的密钥是 ${value} 别外传`,
    english: (value) => `the config holds ${value} in plain text`,
  },
  {
    name: "secret",
    values: ["hunter2hunter2", "Zx9-Qw8-Er7-Ty6"],
    // Seven characters after the key word: too short to be a credential.
    lookAlikes: ["short12"],
    chinese: (value) => `数据库口令：${value}`,
    english: (value) => `password=${value}`,
  },
  {
    name: "private_key",
    values: [privateKey],
    lookAlikes: [privateKey.replaceAll("RSA PRIVATE KEY", "PUBLIC KEY")],
    chinese: (value) => `私钥如下：\n${value}\n请妥善保管`,
    english: (value) => `Here is the key:\n${value}\nKeep it safe.`,
  },
];

describe("default redaction patterns", () => {
  for (const { name, values, lookAlikes, chinese, english } of cases) {
    test(`${name}: redacted in Chinese and English text`, () => {
      for (const value of values) {
        for (const text of [chinese(value), english(value)]) {
          const redacted = redact(text);
          assert.ok(redacted.includes(`[REDACTED:${name}]`), `${text} → ${redacted}`);
          assert.equal(redacted.includes(value), false, `${value} leaks in ${redacted}`);
          // The surrounding words stay.
          assert.equal(redacted.replace(`[REDACTED:${name}]`, value), text);
        }
      }
    });

    test(`${name}: look-alikes that fail the check stay`, () => {
      for (const value of lookAlikes) {
        for (const text of [chinese(value), english(value)]) assert.equal(redact(text), text, `${text} was changed`);
      }
    });
  }

  test("the look-alike numbers really fail their checks, the values pass", () => {
    assert.ok(isChineseResidentId("11010519491231002X") && !isChineseResidentId("110101199003074513"));
    assert.ok(passesLuhn("4111111111111111") && !passesLuhn("4111111111111112"));
  });

  test("several values in one text, each once", () => {
    const text = "张三，身份证 110101199003074514，手机 13812345678，邮箱 zhang.san@example.com，卡号 6222021234567890128。";
    assert.equal(redact(text), "张三，身份证 [REDACTED:id_card]，手机 [REDACTED:phone]，邮箱 [REDACTED:email]，卡号 [REDACTED:bank_card]。");
  });

  test("values written in full-width characters are redacted whole, as the answer's sensitive-data check reads them; the text around them is kept as written", () => {
    assert.equal(redact("手机号１３８１２３４５６７８，谢谢"), "手机号[REDACTED:phone]，谢谢");
    assert.equal(redact("身份证号１１０１０５１９４９１２３１００２Ｘ。"), "身份证号[REDACTED:id_card]。");
    assert.equal(redact("ｍａｉｌ：ｚｈａｎｇ＠ｅｘａｍｐｌｅ．ｃｏｍ （１３８１２３４５６７８）"), "ｍａｉｌ：[REDACTED:email] （[REDACTED:phone]）");
    // Every value the check finds in the original text is gone from the redacted one.
    for (const text of ["call １３８ １２３４ ５６７８ now", "卡号６２２２０２１２３４５６７８９０１２８", "𝟏𝟑𝟖𝟏𝟐𝟑𝟒𝟓𝟔𝟕𝟖", "①③⑧①②③④⑤⑥⑦⑧", "tel 138\u00a01234\u00a05678", "api_key＝abcdefghijkl"]) {
      assert.ok(findSensitiveData(text).length > 0, text);
      assert.deepEqual(findSensitiveData(redact(text)), [], redact(text));
    }
  });

  test("a value hashes by its identity, not its spelling: the same number is the same hash however it was typed", () => {
    const hashing = createRedactor({ mode: "hash", hashKey: "k" });
    const plain = hashing.redact("13812345678");
    for (const typed of ["１３８１２３４５６７８", "138 1234 5678", "+86 13812345678"]) assert.equal(hashing.redact(typed), plain, typed);
    assert.notEqual(hashing.redact("13912345678"), plain);
  });

  test("a truncated private key (no END line) is still redacted", () => {
    const cut = privateKey.split("\n").slice(0, 2).join("\n");
    assert.equal(redact(`key: ${cut}`), "key: [REDACTED:private_key]");
  });
});

describe("hash mode", () => {
  test("equal values hash equal under one key, differently under another; the value never appears", () => {
    const first = createRedactor({ mode: "hash", hashKey: "k1" });
    const again = createRedactor({ mode: "hash", hashKey: "k1" });
    const other = createRedactor({ mode: "hash", hashKey: "k2" });
    const text = "mail zhang.san@example.com";
    const hashed = first.redact(text);
    assert.match(hashed, /^mail \[REDACTED:email:[0-9a-f]{16}\]$/);
    assert.equal(again.redact(text), hashed);
    assert.notEqual(other.redact(text), hashed);
    assert.notEqual(first.redact("mail li.si@example.com"), hashed);
  });

  test("a hash is not scanned again (hex digits must not look like a phone number)", () => {
    const hashing = createRedactor({ mode: "hash", hashKey: "k" });
    for (let index = 0; index < 200; index += 1) {
      const redacted = hashing.redact(`user${index}@example.com`);
      assert.match(redacted, /^\[REDACTED:email:[0-9a-f]{16}\]$/);
    }
  });
});

describe("attributes and spans", () => {
  test("ids, ranks, versions and run linkage are kept; text is redacted; counts per pattern", () => {
    const local = createRedactor();
    const redacted = local.redactAttributes({
      "retrieval.documents.0.document.id": "4111111111111111",
      "ragscope.documents.0.document_id": "13812345678",
      "ragscope.case_id": "zhang.san@example.com",
      "retrieval.documents.0.document.content": "联系 13812345678",
      "user.id": "zhang.san@example.com",
      "ragscope.principal_groups": ["hr", "ops@example.com"],
      "llm.token_count.total": 12,
    });
    assert.equal(redacted["retrieval.documents.0.document.id"], "4111111111111111");
    assert.equal(redacted["ragscope.documents.0.document_id"], "13812345678");
    assert.equal(redacted["ragscope.case_id"], "zhang.san@example.com");
    assert.equal(redacted["retrieval.documents.0.document.content"], "联系 [REDACTED:phone]");
    // A user id is who asked (identity-attributes.ts): under replace a constant would merge every user into one.
    assert.equal(redacted["user.id"], "zhang.san@example.com");
    assert.deepEqual(redacted["ragscope.principal_groups"], ["hr", "[REDACTED:email]"]);
    assert.equal(redacted["llm.token_count.total"], 12);
    assert.equal(local.counts().phone, 1);
    assert.equal(local.counts().email, 1);
    assert.ok(isStructuralAttribute("reranker.output_documents.3.document.id"));
    assert.ok(!isStructuralAttribute("reranker.output_documents.3.document.content"));
  });

  test("attributes with nothing to redact come back as they are; redacted ones as a copy, the input untouched", () => {
    const local = createRedactor();
    const clean = { "input.value": "How many leave days carry over?", "ragscope.principal_groups": ["hr", "ops"], "llm.token_count.total": 12 };
    assert.equal(local.redactAttributes(clean), clean);
    const groups = ["hr", "ops@example.com"];
    const sensitive = { "input.value": "call 13812345678", "ragscope.principal_groups": groups, "retrieval.documents.0.document.id": "13812345678" };
    const redacted = local.redactAttributes(sensitive);
    assert.notEqual(redacted, sensitive);
    assert.deepEqual(redacted, { "input.value": "call [REDACTED:phone]", "ragscope.principal_groups": ["hr", "[REDACTED:email]"], "retrieval.documents.0.document.id": "13812345678" });
    assert.deepEqual(Object.keys(redacted), Object.keys(sensitive));
    assert.equal(sensitive["input.value"], "call 13812345678");
    assert.deepEqual(groups, ["hr", "ops@example.com"]);
  });

  test("the exporter redacts attributes, event attributes and the status message of every span", async () => {
    const inner = new InMemorySpanExporter();
    const exporter = new RedactingSpanExporter(inner, createRedactor());
    const appExporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter), new SimpleSpanProcessor(appExporter)] });
    const span = provider.getTracer("any-instrumentation").startSpan("db.query", { attributes: { "db.statement": "where phone = '13812345678'" } });
    span.addEvent("db.query.result", { "db.query.result.document": "身份证 110101199003074514" });
    span.recordException(new Error("no user zhang.san@example.com"));
    span.setStatus({ code: SpanStatusCode.ERROR, message: "lookup of 13812345678 failed" });
    span.end();
    await provider.forceFlush();
    const [sent] = inner.getFinishedSpans();
    assert.equal(sent!.attributes["db.statement"], "where phone = '[REDACTED:phone]'");
    assert.equal(sent!.events[0]!.attributes!["db.query.result.document"], "身份证 [REDACTED:id_card]");
    assert.equal(sent!.events[1]!.attributes!["exception.message"], "no user [REDACTED:email]");
    assert.equal(sent!.status.message, "lookup of [REDACTED:phone] failed");
    assert.equal(sent!.spanContext().spanId, span.spanContext().spanId);
    // Other processors of the same provider see the span as it was: redaction works on a copy.
    assert.equal(appExporter.getFinishedSpans()[0]!.attributes["db.statement"], "where phone = '13812345678'");
    await provider.shutdown();
  });

  test("the exporter passes a span with nothing to redact on as it is, and copies only what it changed", async () => {
    const inner = new InMemorySpanExporter();
    const appExporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new RedactingSpanExporter(inner, createRedactor())), new SimpleSpanProcessor(appExporter)] });
    const tracer = provider.getTracer("any-instrumentation");
    tracer.startSpan("clean", { attributes: { "input.value": "How many leave days carry over?" } }).end();
    const mixed = tracer.startSpan("mixed", { attributes: { "input.value": "nothing here" } });
    mixed.addEvent("first", { note: "nothing here either" });
    mixed.addEvent("second", { note: "mail zhang.san@example.com" });
    mixed.end();
    const statusOnly = tracer.startSpan("status only", { attributes: { "input.value": "fine" } });
    statusOnly.setStatus({ code: SpanStatusCode.ERROR, message: "call 13812345678" });
    statusOnly.end();
    await provider.forceFlush();
    const [sentClean, sentMixed, sentStatus] = inner.getFinishedSpans();
    const [clean, original, originalStatus] = appExporter.getFinishedSpans();
    assert.equal(sentClean, clean);
    assert.notEqual(sentMixed, original);
    assert.equal(sentMixed!.attributes, original!.attributes);
    assert.equal(sentMixed!.events[0], original!.events[0]);
    assert.equal(sentMixed!.events[1]!.attributes!["note"], "mail [REDACTED:email]");
    assert.equal(original!.events[1]!.attributes!["note"], "mail zhang.san@example.com");
    assert.equal(sentStatus!.status.message, "call [REDACTED:phone]");
    assert.equal(sentStatus!.attributes, originalStatus!.attributes);
    assert.equal(originalStatus!.status.message, "call 13812345678");
    await provider.shutdown();
  });

  test("a span whose redaction throws is not exported in clear", async () => {
    const inner = new InMemorySpanExporter();
    const broken = createRedactor({
      patterns: [
        {
          name: "broken",
          pattern: /x/g,
          validate: () => {
            throw new Error("bug in a custom pattern");
          },
        },
      ],
    });
    const exporter = new RedactingSpanExporter(inner, broken);
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    provider.getTracer("t").startSpan("s", { attributes: { text: "x marks the spot" } }).end();
    await provider.forceFlush();
    assert.equal(inner.getFinishedSpans().length, 0);
    const results: number[] = [];
    exporter.export([], (result) => results.push(result.code));
    assert.deepEqual(results, [ExportResultCode.SUCCESS]);
    await provider.shutdown();
  });

  test("patterns without the global flag and unknown modes are setup bugs", () => {
    assert.throws(() => createRedactor({ patterns: [{ name: "x", pattern: /x/ }] }), /global flag/);
    assert.throws(() => createRedactor({ mode: "encrypt" as "hash" }), /"replace" or "hash"/);
  });
});
