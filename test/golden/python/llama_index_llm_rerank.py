"""
A LlamaIndex query engine that reranks with LLMRerank (llama_index.core.postprocessor),
traced by Arize's openinference-instrumentation-llama-index. LLMRerank sends
LlamaIndex no rerank event, so the instrumentation writes no RERANKER span for
it: only a CHAIN span `LLMRerank._postprocess_nodes`, its input the retrieved
nodes and its output the kept ones, each as `<NodeWithScore(node=TextNode(id_=…), score=…)>`.
The LLM is OpenAILike on a scripted transport (no network): asked to choose,
it answers "Doc: 2, Relevance: 9 / Doc: 1, Relevance: 4"; asked the question,
it answers it. test/data/llama-index-llm-rerank/README.md says how the stored
recording was made and which test replays it.

    python llama_index_llm_rerank.py OUT.otlp.json
"""

from __future__ import annotations

import json
import sys

import httpx
from bigram_hash_embedding import BigramHashEmbedding
from golden_app import record_otlp_json
from llama_index.core import Settings, VectorStoreIndex
from llama_index.core.postprocessor import LLMRerank
from llama_index.core.schema import TextNode
from llama_index.llms.openai_like import OpenAILike
from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

QUESTION = "How long do refunds take?"
ANSWER = "Refunds are paid within 30 days."
# LlamaIndex's choice-select format: the 2nd node of the batch first, then the 1st; the 3rd is left out.
CHOICE = "Doc: 2, Relevance: 9\nDoc: 1, Relevance: 4"
NODES = [("refund-1", "Refunds are paid within 30 days of the return."), ("shipping-1", "Shipping takes 5 days."), ("refund-2", "Refunds for shipping damage need a photo.")]


def handle(request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content)
    choosing = "Relevance" in json.dumps(body["messages"])
    return httpx.Response(
        200,
        json={
            "id": "chatcmpl-llm-rerank",
            "object": "chat.completion",
            "created": 1_783_503_000,
            "model": "policy-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": CHOICE if choosing else ANSWER}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 40, "completion_tokens": 12, "total_tokens": 52},
        },
    )


if __name__ == "__main__":
    llm = OpenAILike(
        model="policy-model",
        api_base="http://fake-openai.invalid/v1",
        api_key="golden",
        is_chat_model=True,
        context_window=8192,
        max_retries=0,
        http_client=httpx.Client(transport=httpx.MockTransport(handle)),
    )
    Settings.llm = llm
    Settings.embed_model = BigramHashEmbedding(model_name="bigram-hash-64")
    index = VectorStoreIndex([TextNode(id_=node_id, text=text) for node_id, text in NODES])
    engine = index.as_query_engine(similarity_top_k=3, node_postprocessors=[LLMRerank(llm=llm, top_n=2)])
    answer = str(record_otlp_json(sys.argv[1], "policy-assistant-llama-index", 0x1009, LlamaIndexInstrumentor(), lambda: engine.query(QUESTION)))
    if answer != ANSWER:
        sys.exit(f"the app answered {answer!r}, not the scripted answer")
