"""
The golden policy question asked of a plain Python RAG app recorded with the
OpenTelemetry GenAI conventions' own Python packages: the request and its
retrieval by opentelemetry-util-genai's TelemetryHandler (an
`invoke_workflow` span with the question and answer as messages, a
`retrieval` span with the query and the ranked documents' ids and scores, as
its RetrievalDocument model has them: no text), the answer's chat call by
opentelemetry-instrumentation-openai-v2. Content on the spans, as the
instrumentation's documentation says to ask for it:
OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental and
OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only (set below,
before the packages read them, unless the environment sets them). The retrieval ranks the corpus by the JS
goldens' embedding (golden_app.py embed_text), top k as the scenario says;
the chat call goes to the scripted endpoint of golden_app.py. The golden
case's run and case ids go on the workflow span as `ragscope.*` attributes,
through the handler's `attributes`.
Usage: golden_app.py.
"""

from __future__ import annotations

import os
from typing import Any

# Defaults only: test/data/otel-genai-without-content/ is this app recorded with the content mode the environment gives.
os.environ.setdefault("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "span_only")

import httpx  # noqa: E402
from golden_app import FAKE_OPENAI_BASE_URL, embed_text, fake_openai_transport, rank_chunks, run_golden_app  # noqa: E402
from openai import OpenAI  # noqa: E402
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor  # noqa: E402
from opentelemetry.util.genai.handler import TelemetryHandler  # noqa: E402
from opentelemetry.util.genai.types import InputMessage, OutputMessage, Text  # noqa: E402


class Instrumentation:
    """openai-v2 on the client, and the handler the app records its request and retrieval with, on one tracer provider."""

    def __init__(self) -> None:
        self.openai = OpenAIInstrumentor()
        self.handler: TelemetryHandler | None = None

    def instrument(self, tracer_provider) -> None:
        self.openai.instrument(tracer_provider=tracer_provider)
        self.handler = TelemetryHandler(tracer_provider=tracer_provider)

    def uninstrument(self) -> None:
        self.openai.uninstrument()


INSTRUMENTATION = Instrumentation()


def build(scenario: dict[str, Any]) -> dict[str, Any]:
    # Indexing before the instrumentation starts: a job of its own in most apps.
    return {
        "index": [(chunk, embed_text(chunk["text"])) for chunk in scenario["chunks"]],
        "client": OpenAI(api_key="golden", base_url=FAKE_OPENAI_BASE_URL, http_client=httpx.Client(transport=fake_openai_transport(scenario))),
    }


def ask(app: dict[str, Any], scenario: dict[str, Any]) -> str:
    handler = INSTRUMENTATION.handler
    assert handler is not None
    question = scenario["question"]
    with handler.workflow("policy_rag") as workflow:
        workflow.input_messages = [InputMessage(role="user", parts=[Text(content=question)])]
        # The handler's own way to add attributes to its span: the golden case's run and case, where ragscope reads them.
        workflow.attributes.update(scenario["linkage"])
        with handler.retrieval(data_source_id="policy_corpus") as retrieval:
            retrieval.query_text = question
            retrieval.top_k = scenario["topK"]
            scored = rank_chunks(app["index"], question, scenario["topK"])
            retrieval.documents = [{"id": chunk["chunkId"], "score": round(score, 6)} for score, chunk in scored]
        context = "\n\n".join(chunk["text"] for _, chunk in scored)
        completion = app["client"].chat.completions.create(
            model=scenario["model"],
            messages=[
                {"role": "system", "content": f"Answer from the policy excerpts below.\n\n{context}"},
                {"role": "user", "content": question},
            ],
        )
        answer = completion.choices[0].message.content
        workflow.output_messages = [OutputMessage(role="assistant", parts=[Text(content=answer)], finish_reason="stop")]
    return answer


if __name__ == "__main__":
    run_golden_app(__doc__, "policy-assistant-otel-genai-python", build, INSTRUMENTATION, ask)
