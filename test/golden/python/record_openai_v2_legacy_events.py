"""
One chat call of the golden scenario through the `openai` client, traced by opentelemetry-instrumentation-openai-v2
on the GenAI conventions' older event path (2.3b0, before it moved to opentelemetry-util-genai): the chat span carries
the model and tokens, and every message goes as an OpenTelemetry log record beside it — a `gen_ai.<role>.message`
record per input message and a `gen_ai.choice` record whose body is the choice — with content when
OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (set below unless the environment sets it). Written as two
OTLP/JSON request bodies, the traces and the logs. The chat call goes to golden_app.py's scripted endpoint.
Usage: python record_openai_v2_legacy_events.py SCENARIO.json TRACES_OUT.json LOGS_OUT.json
(test/data/otel-genai-log-events/README.md).
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")

import httpx  # noqa: E402
from golden_app import FAKE_OPENAI_BASE_URL, CountingIdGenerator, fake_openai_transport, logs_to_otlp_json, to_otlp_json  # noqa: E402
from openai import OpenAI  # noqa: E402
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor  # noqa: E402
from opentelemetry.sdk._logs import LoggerProvider  # noqa: E402
from opentelemetry.sdk._logs.export import InMemoryLogExporter, SimpleLogRecordProcessor  # noqa: E402
from opentelemetry.sdk.resources import Resource  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402


def main() -> None:
    scenario_path, traces_path, logs_path = sys.argv[1:4]
    with open(scenario_path, encoding="utf-8") as file:
        scenario = json.load(file)
    resource = Resource.create({"service.name": "policy-assistant-openai-v2-legacy"})
    tracer_provider = TracerProvider(resource=resource, id_generator=CountingIdGenerator(scenario["idSeed"]))
    spans = InMemorySpanExporter()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    logger_provider = LoggerProvider(resource=resource)
    logs = InMemoryLogExporter()
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    client = OpenAI(api_key="golden", base_url=FAKE_OPENAI_BASE_URL, http_client=httpx.Client(transport=fake_openai_transport(scenario)))
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=tracer_provider, logger_provider=logger_provider)
    try:
        completion = client.chat.completions.create(
            model=scenario["model"],
            messages=[{"role": "system", "content": "Answer from the policy excerpts."}, {"role": "user", "content": scenario["question"]}],
        )
    finally:
        instrumentor.uninstrument()
        tracer_provider.shutdown()
        logger_provider.shutdown()
    if completion.choices[0].message.content != scenario["answer"]:
        sys.exit("the app got another answer than the scripted one")
    with open(traces_path, "w", encoding="utf-8") as file:
        json.dump(to_otlp_json(spans.get_finished_spans()), file, ensure_ascii=False, indent=1)
    with open(logs_path, "w", encoding="utf-8") as file:
        json.dump(logs_to_otlp_json(logs.get_finished_logs()), file, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
