"""
What the Python golden apps share: the scenario, a chat-completions endpoint
with scripted replies that never leaves the process, the JS goldens' embedding,
reproducible ids, and the two ways to send the spans (record-python-goldens.ts
runs the apps):

  python APP.py SCENARIO.json --otlp-json OUT.json
      the spans as OTLP/JSON (the request body the OTLP exporters encode,
      written with protobuf's JSON printer, ids in hex as OTLP/JSON has them)
  python APP.py SCENARIO.json --endpoint URL
      the spans sent by the OTLP/HTTP protobuf exporter, as an app sends them

Trace and span ids come from a counter (as record-goldens.ts does), so a
recording is reproducible; timestamps, random UUIDs and repr addresses are
made reproducible afterwards by record-python-goldens.ts.
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import re
import sys
from typing import Any, Callable

import httpx
from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator

FAKE_OPENAI_BASE_URL = "http://fake-openai.invalid/v1"
DIMENSIONS = 64


def embed_text(text: str) -> list[float]:
    """deterministic-embeddings.ts's embedText, line for line: FNV-1a over each character bigram, L2-normalised."""
    vector = [0.0] * DIMENSIONS
    characters = list(re.sub(r"\s+", " ", text.lower()))
    for index in range(len(characters) - 1):
        hash_value = 2166136261
        for unit in characters[index] + characters[index + 1]:
            hash_value = ((hash_value ^ ord(unit)) * 16777619) & 0xFFFFFFFF
        vector[hash_value % DIMENSIONS] += 1
    norm = math.sqrt(sum(value * value for value in vector)) or 1
    return [value / norm for value in vector]


class CountingIdGenerator(IdGenerator):
    """record-goldens.ts's CountingIdGenerator: ids from a counter under a seed."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.traces = 0
        self.spans = 0

    def generate_trace_id(self) -> int:
        self.traces += 1
        return int(f"{self.seed:08x}{'0' * 16}{self.traces:08x}", 16)

    def generate_span_id(self) -> int:
        self.spans += 1
        return int(f"{self.seed:04x}{self.spans:012x}", 16)


def fake_openai_transport(scenario: dict[str, Any]) -> httpx.MockTransport:
    """
    A chat-completions endpoint with two scripted replies, each with the
    scenario's token usage: a request that offers a tool (LlamaIndex's
    StructuredLLMRerank asks for DocumentRelevanceList) gets a call of it with
    the scenario's relevance scores; every other request gets the answer.
    """

    def handle(request: httpx.Request) -> httpx.Response:
        if not request.url.path.endswith("/chat/completions"):
            return httpx.Response(404, json={"error": {"message": f"not scripted: {request.url}"}})
        body = json.loads(request.content)
        if body.get("tools"):
            tool = body["tools"][0]["function"]["name"]
            arguments = json.dumps({"documents": scenario["rerank"]["relevances"]}, ensure_ascii=False)
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "call_golden_rerank", "type": "function", "function": {"name": tool, "arguments": arguments}}],
            }
            usage = scenario["rerank"]["usage"]
            completion_id, finish_reason = "chatcmpl-golden-rerank", "tool_calls"
        else:
            message = {"role": "assistant", "content": scenario["answer"]}
            usage = scenario["answerUsage"]
            completion_id, finish_reason = "chatcmpl-golden-answer", "stop"
        return httpx.Response(
            200,
            json={
                "id": completion_id,
                "object": "chat.completion",
                "created": 1_783_503_000,
                "model": scenario["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
                "usage": {
                    "prompt_tokens": usage["promptTokens"],
                    "completion_tokens": usage["completionTokens"],
                    "total_tokens": usage["promptTokens"] + usage["completionTokens"],
                },
            },
        )

    return httpx.MockTransport(handle)


def rank_chunks(index: list[tuple[dict[str, Any], list[float]]], question: str, top_k: int) -> list[tuple[float, dict[str, Any]]]:
    """The apps' own retrieval over an index of (chunk, embed_text vector): the top `top_k` chunks by dot product, best first, each with its score."""
    wanted = embed_text(question)
    return sorted(((sum(a * b for a, b in zip(wanted, vector)), chunk) for chunk, vector in index), key=lambda pair: -pair[0])[:top_k]


def chunk_metadata(chunk: dict[str, Any]) -> dict[str, str]:
    """The ids a loader keeps with each chunk, as policy-corpus.ts names them."""
    return {
        "document_id": chunk["documentId"],
        "document_version": chunk["documentVersion"],
        "section_id": chunk["sectionId"],
        **({"effective_from": chunk["effectiveFrom"]} if "effectiveFrom" in chunk else {}),
        **({"effective_to": chunk["effectiveTo"]} if "effectiveTo" in chunk else {}),
    }


def to_otlp_json(spans) -> dict[str, Any]:
    """The OTLP exporters' request body as OTLP/JSON: protobuf's JSON mapping, but ids in hex and enums as integers."""
    document = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    for resource_spans in document.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return document


def logs_to_otlp_json(records) -> dict[str, Any]:
    """The logs exporter's request body as OTLP/JSON, as to_otlp_json writes the traces exporter's: ids in hex, enums as integers."""
    # Imported here, as in record_traces_and_logs: only the recordings with logs need the logs encoder.
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs

    document = MessageToDict(encode_logs(records), use_integers_for_enums=True)
    for resource_logs in document.get("resourceLogs", []):
        for scope_logs in resource_logs.get("scopeLogs", []):
            for record in scope_logs.get("logRecords", []):
                for key in ("traceId", "spanId"):
                    if key in record:
                        record[key] = base64.b64decode(record[key]).hex()
    return document


def record_traces_and_logs(
    scenario_path: str,
    traces_path: str,
    logs_path: str,
    service_name: str,
    build: Callable[[dict[str, Any]], Any],
    instrument: Callable[[Any, Any], None],
    uninstrument: Callable[[], None],
    ask: Callable[[Any, dict[str, Any]], str],
) -> None:
    """
    As run_golden_app, for the recordings whose content goes as log records: builds the app, instruments it with a
    tracer provider (ids from a counter) and a logger provider beside it (`instrument(tracer_provider,
    logger_provider)`), asks the scenario's question once, and writes the spans and the log records as the OTLP/JSON
    request bodies of the traces and logs exporters.
    """
    # Imported here: the golden apps that send no logs run in environments whose SDK need not have them.
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import InMemoryLogExporter, SimpleLogRecordProcessor

    with open(scenario_path, encoding="utf-8") as file:
        scenario = json.load(file)
    resource = Resource.create({"service.name": service_name})
    tracer_provider = TracerProvider(resource=resource, id_generator=CountingIdGenerator(scenario["idSeed"]))
    spans = InMemorySpanExporter()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    logger_provider = LoggerProvider(resource=resource)
    logs = InMemoryLogExporter()
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    app = build(scenario)
    instrument(tracer_provider, logger_provider)
    try:
        answer = ask(app, scenario)
    finally:
        uninstrument()
        tracer_provider.shutdown()
        logger_provider.shutdown()
    if answer != scenario["answer"]:
        sys.exit(f"the app answered {answer!r}, not the scripted answer")
    with open(traces_path, "w", encoding="utf-8") as file:
        json.dump(to_otlp_json(spans.get_finished_spans()), file, ensure_ascii=False, indent=1)
    with open(logs_path, "w", encoding="utf-8") as file:
        json.dump(logs_to_otlp_json(logs.get_finished_logs()), file, ensure_ascii=False, indent=1)


def run_golden_app(
    description: str,
    service_name: str,
    build: Callable[[dict[str, Any]], Any],
    instrumentor: Any,
    ask: Callable[[Any, dict[str, Any]], str],
) -> None:
    """
    Builds the app (before the instrumentation starts: indexing is a job of its
    own in most apps, and its embedding spans would be a trace of their own),
    instruments it, asks the scenario's question once, and sends the spans.
    """
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", help="the scenario JSON written by record-python-goldens.ts")
    destination = parser.add_mutually_exclusive_group(required=True)
    destination.add_argument("--otlp-json", help="write the spans to this file as OTLP/JSON")
    destination.add_argument("--endpoint", help="send the spans with the OTLP/HTTP protobuf exporter to this URL (…/v1/traces)")
    arguments = parser.parse_args()
    with open(arguments.scenario, encoding="utf-8") as file:
        scenario = json.load(file)

    app = build(scenario)
    provider = TracerProvider(resource=Resource.create({"service.name": service_name}), id_generator=CountingIdGenerator(scenario["idSeed"]))
    memory = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(memory if arguments.otlp_json else OTLPSpanExporter(endpoint=arguments.endpoint)))
    instrumentor.instrument(tracer_provider=provider)
    try:
        answer = ask(app, scenario)
        if answer != scenario["answer"]:
            sys.exit(f"the app answered {answer!r}, not the scripted answer")
    finally:
        instrumentor.uninstrument()
        provider.shutdown()
    if arguments.otlp_json:
        with open(arguments.otlp_json, "w", encoding="utf-8") as file:
            json.dump(to_otlp_json(memory.get_finished_spans()), file, ensure_ascii=False)


def record_otlp_json(path: str, service_name: str, id_seed: int, instrumentor: Any, action: Callable[[], Any]) -> Any:
    """
    Runs `action` with `instrumentor` on, ids from a counter under `id_seed`,
    and writes its spans to `path` as OTLP/JSON; returns what `action` returned.
    For the recordings under test/data/ that are not goldens.
    """
    provider = TracerProvider(resource=Resource.create({"service.name": service_name}), id_generator=CountingIdGenerator(id_seed))
    memory = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    instrumentor.instrument(tracer_provider=provider)
    try:
        result = action()
    finally:
        instrumentor.uninstrument()
        provider.shutdown()
    with open(path, "w", encoding="utf-8") as file:
        json.dump(to_otlp_json(memory.get_finished_spans()), file, ensure_ascii=False, indent=1)
    return result
