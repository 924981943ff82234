"""
A plain-Python RAG request that retrieves from Chroma and reranks with Cohere,
traced by Traceloop's OpenLLMetry instrumentations:
- opentelemetry-instrumentation-chromadb: the `chroma.query` span, one
  `db.query.result` event per hit (id, distance, document, metadata);
- opentelemetry-instrumentation-cohere: the `cohere.rerank` span, the documents
  as prompts, the query as the last prompt, the ranking as completions
  "Doc <index>, Score: <relevance>" (no ids).
The request itself is a span the app opens with the OpenTelemetry API and
ragscope's attributes (`ragscope.stage = request`, `ragscope.query`,
`ragscope.answer`), as an app without a request span of its own does; there is
no LLM call (the answer is fixed), since the rerank is what is recorded.

Chroma is in memory with embeddings the app computes (golden_app.embed_text, no
model file); the Cohere endpoint is a local HTTP server in this process (no
network) that scores each document by a scripted relevance for its text, so
the rerank's order does not depend on the retrieval's.
test/data/openllmetry-cohere-rerank/README.md says how the stored recording was
made and which test replays it.

    python openllmetry_cohere_rerank.py OUT.otlp.json
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import chromadb
import cohere
from golden_app import embed_text, record_otlp_json
from opentelemetry import trace
from opentelemetry.instrumentation.chromadb import ChromaInstrumentor
from opentelemetry.instrumentation.cohere import CohereInstrumentor

QUESTION = "How long do refunds take?"
ANSWER = "Refunds are paid within 30 days of the return."
CHUNKS = [
    ("refund-1", "Refunds are paid within 30 days of the return."),
    ("shipping-1", "Shipping takes 5 days."),
    ("refund-2", "Refunds for shipping damage need a photo."),
]
# What the fake Cohere endpoint answers for each text: refund-2 first, then refund-1; shipping-1 falls out of the top 2.
RELEVANCE = {
    "Refunds for shipping damage need a photo.": 0.91,
    "Refunds are paid within 30 days of the return.": 0.63,
    "Shipping takes 5 days.": 0.08,
}


class FakeCohere(BaseHTTPRequestHandler):
    """Cohere's POST /v1/rerank and /v2/rerank, scored by RELEVANCE; every other path is a 404."""

    def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path not in ("/v1/rerank", "/v2/rerank"):
            self.reply(404, {"message": f"not scripted: {self.path}"})
            return
        documents = body["documents"]
        ranked = sorted(range(len(documents)), key=lambda index: -RELEVANCE[documents[index]])[: body.get("top_n")]
        self.reply(
            200,
            {
                "id": "rerank-recorded-1",
                "results": [{"index": index, "relevance_score": RELEVANCE[documents[index]]} for index in ranked],
                "meta": {"api_version": {"version": "2"}, "billed_units": {"search_units": 1}},
            },
        )

    def reply(self, status: int, payload: dict) -> None:
        content = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)

    def log_message(self, *arguments) -> None:
        pass


class BothInstrumentors:
    """The two OpenLLMetry instrumentations on one tracer provider (record_otlp_json takes one instrumentor)."""

    def __init__(self) -> None:
        self.instrumentors = [ChromaInstrumentor(), CohereInstrumentor()]

    def instrument(self, **options) -> None:
        for instrumentor in self.instrumentors:
            instrumentor.instrument(**options)
        self.tracer = trace.get_tracer("policy-assistant", tracer_provider=options["tracer_provider"])

    def uninstrument(self) -> None:
        for instrumentor in self.instrumentors:
            instrumentor.uninstrument()


def answer_question(instrumentors: BothInstrumentors, collection, client: cohere.ClientV2) -> str:
    with instrumentors.tracer.start_as_current_span("rag.request", attributes={"ragscope.stage": "request", "ragscope.query": QUESTION}) as request:
        hits = collection.query(query_embeddings=[embed_text(QUESTION)], n_results=3)
        client.rerank(model="rerank-v3.5", query=QUESTION, documents=hits["documents"][0], top_n=2)
        # The answer is fixed: the rerank, not a generation, is what this recording is for.
        request.set_attribute("ragscope.answer", ANSWER)
        return ANSWER


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeCohere)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        store = chromadb.EphemeralClient(settings=chromadb.Settings(anonymized_telemetry=False))
        collection = store.create_collection("policies", embedding_function=None, metadata={"hnsw:space": "cosine"})
        collection.add(ids=[chunk_id for chunk_id, _ in CHUNKS], documents=[text for _, text in CHUNKS], embeddings=[embed_text(text) for _, text in CHUNKS])
        client = cohere.ClientV2(api_key="recorded", base_url=f"http://127.0.0.1:{server.server_address[1]}")
        instrumentors = BothInstrumentors()
        answer = record_otlp_json(sys.argv[1], "policy-assistant-openllmetry-cohere", 0x100A, instrumentors, lambda: answer_question(instrumentors, collection, client))
    finally:
        server.shutdown()
    if answer != ANSWER:
        sys.exit(f"the app answered {answer!r}, not the scripted answer")
