"""
The golden policy question asked of otel_genai_policy_rag.py with an OpenTelemetry logger provider beside its tracer
provider, for what the GenAI conventions' packages send as log records rather than on the spans: written as two
OTLP/JSON request bodies, the traces and the logs, as the OTLP exporters would send them to /v1/traces and /v1/logs.
The content mode is the environment's (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT; `event_only` puts the chat
call's messages in a `gen_ai.client.inference.operation.details` record and none on the span).
Usage: python record_genai_log_events.py SCENARIO.json TRACES_OUT.json LOGS_OUT.json (test/data/otel-genai-log-events/README.md).
"""

from __future__ import annotations

import json
import sys

import otel_genai_policy_rag as app_module
from golden_app import CountingIdGenerator, logs_to_otlp_json, to_otlp_json
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
from opentelemetry.sdk._logs._internal.export.in_memory_log_exporter import InMemoryLogRecordExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.util.genai.handler import TelemetryHandler


def main() -> None:
    scenario_path, traces_path, logs_path = sys.argv[1:4]
    with open(scenario_path, encoding="utf-8") as file:
        scenario = json.load(file)
    resource = Resource.create({"service.name": "policy-assistant-otel-genai-python"})
    tracer_provider = TracerProvider(resource=resource, id_generator=CountingIdGenerator(scenario["idSeed"]))
    spans = InMemorySpanExporter()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    logger_provider = LoggerProvider(resource=resource)
    logs = InMemoryLogRecordExporter()
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    instrumentation = app_module.INSTRUMENTATION
    app = app_module.build(scenario)
    instrumentation.openai.instrument(tracer_provider=tracer_provider, logger_provider=logger_provider)
    instrumentation.handler = TelemetryHandler(tracer_provider=tracer_provider, logger_provider=logger_provider)
    try:
        answer = app_module.ask(app, scenario)
    finally:
        instrumentation.uninstrument()
        tracer_provider.shutdown()
        logger_provider.shutdown()
    if answer != scenario["answer"]:
        sys.exit(f"the app answered {answer!r}, not the scripted answer")
    with open(traces_path, "w", encoding="utf-8") as file:
        json.dump(to_otlp_json(spans.get_finished_spans()), file, ensure_ascii=False, indent=1)
    with open(logs_path, "w", encoding="utf-8") as file:
        json.dump(logs_to_otlp_json(logs.get_finished_logs()), file, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
