"""
The golden policy question asked of a Python LangChain RAG chain, traced by
Arize's openinference-instrumentation-langchain: the chain of
langchain_policy_chain.py (the JS goldens' chain in Python — a
VectorStoreRetriever over langchain-core's InMemoryVectorStore, top 3, a step
that formats the documents, the same prompt, ChatOpenAI over the scripted
endpoint of golden_app.py, and a string output parser).
Usage: golden_app.py.
"""

from __future__ import annotations

from typing import Any

from golden_app import run_golden_app
from langchain_policy_chain import build_chain
from openinference.instrumentation.langchain import LangChainInstrumentor


def ask(chain, scenario: dict[str, Any]) -> str:
    # LangChain's own metadata option: the instrumentation writes it to OpenInference's `metadata`, where ragscope reads the linkage.
    # One branch of the parallel step at a time (LangChain runs them on a thread pool), so span ids and order are reproducible.
    return chain.invoke(scenario["question"], config={"metadata": scenario["linkage"], "max_concurrency": 1})


if __name__ == "__main__":
    run_golden_app(__doc__, "policy-assistant-langchain-python", build_chain, LangChainInstrumentor(), ask)
