"""
The golden policy question asked of a plain Python RAG app whose chat call
goes through the Azure AI Inference client library (`azure-ai-inference`),
traced by its own instrumentor (`AIInferenceInstrumentor`, through
`azure-core-tracing-opentelemetry`). That instrumentor writes the chat span's
messages not as attributes but as span events — one `gen_ai.<role>.message`
event per input message and one `gen_ai.choice` event per choice, each with
the message as the JSON of its `gen_ai.event.content` attribute — and, with
content recording off (its default), the choice events without the message.
The request and its retrieval are recorded with opentelemetry-util-genai's
TelemetryHandler, as in otel_genai_policy_rag.py (the conventions' own spans;
the Azure library records only the call), with the question and the ranked
documents, but no answer: the answer is the chat call's alone to give.
Content recording is on unless the environment says otherwise
(AZURE_TRACING_GEN_AI_CONTENT_RECORDING_ENABLED; test/data/azure-ai-inference-without-content/
is this app recorded with it off). The chat call goes to the scripted endpoint
of golden_app.py, through a `requests` adapter (the Azure client's transport
is `requests`, not httpx).
Usage: golden_app.py.
"""

from __future__ import annotations

import io
import os
from typing import Any

os.environ.setdefault("AZURE_TRACING_GEN_AI_CONTENT_RECORDING_ENABLED", "true")
os.environ.setdefault("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "span_only")

import httpx  # noqa: E402
import requests  # noqa: E402
import urllib3  # noqa: E402
from azure.ai.inference import ChatCompletionsClient  # noqa: E402
from azure.ai.inference.models import SystemMessage, UserMessage  # noqa: E402
from azure.ai.inference.tracing import AIInferenceInstrumentor  # noqa: E402
from azure.core.credentials import AzureKeyCredential  # noqa: E402
from azure.core.pipeline.policies import UserAgentPolicy  # noqa: E402
from azure.core.pipeline.transport import RequestsTransport  # noqa: E402
from azure.core.settings import settings  # noqa: E402
from golden_app import FAKE_OPENAI_BASE_URL, embed_text, fake_openai_transport, rank_chunks, run_golden_app  # noqa: E402
from opentelemetry import trace  # noqa: E402
from opentelemetry.util.genai.handler import TelemetryHandler  # noqa: E402
from opentelemetry.util.genai.types import InputMessage, Text  # noqa: E402


class ScriptedAdapter(requests.adapters.BaseAdapter):
    """A `requests` adapter answering from golden_app.py's scripted chat-completions endpoint: nothing leaves the process."""

    def __init__(self, transport: httpx.MockTransport) -> None:
        super().__init__()
        self.transport = transport

    def send(self, request, **kwargs):  # noqa: ANN001, ANN003 — requests' adapter signature
        body = request.body.encode() if isinstance(request.body, str) else (request.body or b"")
        answer = self.transport.handle_request(httpx.Request(request.method, request.url, headers=dict(request.headers), content=body))
        answer.read()
        # The body as urllib3 hands it to `requests` from a socket: the Azure transport reads it from `raw`.
        raw = urllib3.response.HTTPResponse(body=io.BytesIO(answer.content), headers=dict(answer.headers), status=answer.status_code, preload_content=False)
        response = requests.Response()
        response.status_code = answer.status_code
        response.headers.update(answer.headers)
        response.raw = raw
        response.url = request.url
        response.request = request
        return response

    def close(self) -> None:
        pass


class Instrumentation:
    """The Azure library's instrumentor (it traces through the global tracer provider) and the handler, on one provider."""

    def __init__(self) -> None:
        self.azure = AIInferenceInstrumentor()
        self.handler: TelemetryHandler | None = None

    def instrument(self, tracer_provider) -> None:
        settings.tracing_implementation = "opentelemetry"
        trace.set_tracer_provider(tracer_provider)
        self.azure.instrument()
        self.handler = TelemetryHandler(tracer_provider=tracer_provider)

    def uninstrument(self) -> None:
        self.azure.uninstrument()


INSTRUMENTATION = Instrumentation()


def build(scenario: dict[str, Any]) -> dict[str, Any]:
    session = requests.Session()
    session.mount("http://fake-openai.invalid", ScriptedAdapter(fake_openai_transport(scenario)))
    return {
        "index": [(chunk, embed_text(chunk["text"])) for chunk in scenario["chunks"]],
        # The user agent without the machine's platform (azure-core appends the kernel's release): the recording is reproducible.
        "client": ChatCompletionsClient(
            endpoint=FAKE_OPENAI_BASE_URL,
            credential=AzureKeyCredential("golden"),
            transport=RequestsTransport(session=session),
            user_agent_policy=UserAgentPolicy(base_user_agent="azsdk-python-ai-inference", user_agent_overwrite=True),
        ),
    }


def ask(app: dict[str, Any], scenario: dict[str, Any]) -> str:
    handler = INSTRUMENTATION.handler
    assert handler is not None
    question = scenario["question"]
    with handler.workflow("policy_rag") as workflow:
        workflow.input_messages = [InputMessage(role="user", parts=[Text(content=question)])]
        workflow.attributes.update(scenario["linkage"])
        with handler.retrieval(data_source_id="policy_corpus") as retrieval:
            retrieval.query_text = question
            retrieval.top_k = scenario["topK"]
            scored = rank_chunks(app["index"], question, scenario["topK"])
            retrieval.documents = [{"id": chunk["chunkId"], "score": round(score, 6)} for score, chunk in scored]
        context = "\n\n".join(chunk["text"] for _, chunk in scored)
        completion = app["client"].complete(
            model=scenario["model"],
            messages=[SystemMessage(f"Answer from the policy excerpts below.\n\n{context}"), UserMessage(question)],
        )
    return completion.choices[0].message.content


if __name__ == "__main__":
    run_golden_app(__doc__, "policy-assistant-azure-ai-inference-python", build, INSTRUMENTATION, ask)
