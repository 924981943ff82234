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

import os
import sys
from typing import Any

os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")

import httpx  # noqa: E402
from golden_app import FAKE_OPENAI_BASE_URL, fake_openai_transport, record_traces_and_logs  # noqa: E402
from openai import OpenAI  # noqa: E402
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor  # noqa: E402


def build(scenario: dict[str, Any]) -> OpenAI:
    return OpenAI(api_key="golden", base_url=FAKE_OPENAI_BASE_URL, http_client=httpx.Client(transport=fake_openai_transport(scenario)))


def ask(client: OpenAI, scenario: dict[str, Any]) -> str:
    completion = client.chat.completions.create(
        model=scenario["model"],
        messages=[{"role": "system", "content": "Answer from the policy excerpts."}, {"role": "user", "content": scenario["question"]}],
    )
    return completion.choices[0].message.content or ""


def main() -> None:
    instrumentor = OpenAIInstrumentor()
    traces_path, logs_path = sys.argv[2:4]
    record_traces_and_logs(
        sys.argv[1],
        traces_path,
        logs_path,
        "policy-assistant-openai-v2-legacy",
        build,
        lambda tracer_provider, logger_provider: instrumentor.instrument(tracer_provider=tracer_provider, logger_provider=logger_provider),
        instrumentor.uninstrument,
        ask,
    )


if __name__ == "__main__":
    main()
