"""
The golden policy question asked of the Python LangChain RAG chain of
langchain_policy_rag.py (the same chain, store, embedding, prompt and scripted
endpoint), traced by Traceloop's OpenLLMetry instrumentation
opentelemetry-instrumentation-langchain instead of Arize's. Traceloop writes
each chain step's input and output as `traceloop.entity.input` / `.output`
JSON (`{"inputs": …}`, `{"outputs": …}`) in which LangChain objects are in
LangChain's serialised form (`{"lc": 1, "type": "constructor", "id": [...,
"Document"], "kwargs": {...}}`), the retriever as a `vector_db_retrieve` span
(`{"query": …}`, `{"documents": [{page_content, metadata}], "count": N}`),
and `config={"metadata": …}` as `traceloop.association.properties.*`.

It runs in a virtual environment of its own
(requirements-traceloop-langchain.txt): traceloop-sdk 0.62.4 does not install
beside OpenTelemetry 1.45.2, so the instrumentation package is used directly.
Usage: golden_app.py.
"""

from __future__ import annotations

from typing import Any

from golden_app import run_golden_app
from langchain_policy_chain import build_chain
from opentelemetry.instrumentation.langchain import LangchainInstrumentor


def ask(chain, scenario: dict[str, Any]) -> str:
    # LangChain's own metadata option: Traceloop writes it to every span as `traceloop.association.properties.<key>`,
    # where ragscope reads the linkage. One branch of the parallel step at a time (LangChain runs them on a thread
    # pool), so span ids and order are reproducible.
    return chain.invoke(scenario["question"], config={"metadata": scenario["linkage"], "max_concurrency": 1})


if __name__ == "__main__":
    run_golden_app(__doc__, "policy-assistant-langchain-python-traceloop", build_chain, LangchainInstrumentor(), ask)
