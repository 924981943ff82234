"""
The golden policy question asked of a LlamaIndex RAG app, traced by Arize's
openinference-instrumentation-llama-index: the spans a Python team's app
sends ragscope, exactly as that instrumentation writes them.

The app is LlamaIndex's own query engine over an in-memory VectorStoreIndex:
retrieve the top 3 nodes, rerank them with StructuredLLMRerank (an LLM asked
for relevance scores, keeping the best 2), then answer with the default
response synthesizer. The LLM is OpenAILike (the OpenAI client LlamaIndex uses
for OpenAI-compatible servers) over the scripted endpoint of golden_app.py;
the embedding is the JS goldens' character-bigram hash, so the store ranks the
chunks as the JS goldens' store does. Usage: golden_app.py.
"""

from __future__ import annotations

from typing import Any

import httpx
from bigram_hash_embedding import BigramHashEmbedding
from golden_app import FAKE_OPENAI_BASE_URL, chunk_metadata, fake_openai_transport, run_golden_app
from llama_index.core import Settings, VectorStoreIndex
from llama_index.core.postprocessor import StructuredLLMRerank
from llama_index.core.schema import TextNode
from llama_index.llms.openai_like import OpenAILike
from openinference.instrumentation import using_metadata
from openinference.instrumentation.llama_index import LlamaIndexInstrumentor


def build_query_engine(scenario: dict[str, Any]):
    llm = OpenAILike(
        model=scenario["model"],
        api_base=FAKE_OPENAI_BASE_URL,
        api_key="golden",
        is_chat_model=True,
        is_function_calling_model=True,
        context_window=8192,
        max_retries=0,
        http_client=httpx.Client(transport=fake_openai_transport(scenario)),
    )
    Settings.llm = llm
    Settings.embed_model = BigramHashEmbedding(model_name="bigram-hash-64")
    # Each node keeps its chunk id as its node id and the loader's ids as metadata, as ingestion pipelines do.
    # The metadata is left out of what is embedded (it would otherwise be embedded with the text), so the
    # store ranks the chunks by their text alone, as the JS goldens' store does; the LLM still sees it.
    nodes = [
        TextNode(id_=chunk["chunkId"], text=chunk["text"], metadata=chunk_metadata(chunk), excluded_embed_metadata_keys=list(chunk_metadata(chunk)))
        for chunk in scenario["chunks"]
    ]
    index = VectorStoreIndex(nodes)
    reranker = StructuredLLMRerank(llm=llm, top_n=scenario["rerank"]["topN"])
    return index.as_query_engine(similarity_top_k=scenario["topK"], node_postprocessors=[reranker])


def ask(query_engine, scenario: dict[str, Any]) -> str:
    # The run / case linkage rides in OpenInference's `metadata`, where ragscope reads it.
    with using_metadata(scenario["linkage"]):
        return str(query_engine.query(scenario["question"]))


if __name__ == "__main__":
    run_golden_app(__doc__, "policy-assistant-llama-index", build_query_engine, LlamaIndexInstrumentor(), ask)
