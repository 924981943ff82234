"""
The golden policy question asked of otel_genai_policy_rag.py with an OpenTelemetry logger provider beside its tracer
provider, for what the GenAI conventions' packages send as log records rather than on the spans: written as two
OTLP/JSON request bodies, the traces and the logs, as the OTLP exporters would send them to /v1/traces and /v1/logs.
The content mode is the environment's (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT; `event_only` puts the chat
call's messages in a `gen_ai.client.inference.operation.details` record and none on the span).
Usage: python record_genai_log_events.py SCENARIO.json TRACES_OUT.json LOGS_OUT.json (test/data/otel-genai-log-events/README.md).
"""

from __future__ import annotations

import sys

import otel_genai_policy_rag as app_module
from golden_app import record_traces_and_logs
from opentelemetry.util.genai.handler import TelemetryHandler


def main() -> None:
    instrumentation = app_module.INSTRUMENTATION

    def instrument(tracer_provider, logger_provider) -> None:
        instrumentation.openai.instrument(tracer_provider=tracer_provider, logger_provider=logger_provider)
        instrumentation.handler = TelemetryHandler(tracer_provider=tracer_provider, logger_provider=logger_provider)

    traces_path, logs_path = sys.argv[2:4]
    record_traces_and_logs(sys.argv[1], traces_path, logs_path, "policy-assistant-otel-genai-python", app_module.build, instrument, instrumentation.uninstrument, app_module.ask)


if __name__ == "__main__":
    main()
