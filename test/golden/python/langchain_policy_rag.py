"""
The golden policy question asked of a Python LangChain RAG chain, traced by
Arize's openinference-instrumentation-langchain: the chain of the JS goldens
(scenarios/langchain-rag-chain.ts) in Python — a VectorStoreRetriever over
langchain-core's InMemoryVectorStore (top 3), a step that formats the
documents, the same prompt, ChatOpenAI over the scripted endpoint of
golden_app.py, and a string output parser. The embedding is the JS goldens'
character-bigram hash, so the store ranks the chunks as the JS store does.
Usage: golden_app.py.
"""

from __future__ import annotations

from typing import Any

import httpx
from golden_app import FAKE_OPENAI_BASE_URL, chunk_metadata, embed_text, fake_openai_transport, run_golden_app
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_openai import ChatOpenAI
from openinference.instrumentation.langchain import LangChainInstrumentor


class BigramHashEmbeddings(Embeddings):
    """An embedding model that needs no model file and no network."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [embed_text(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return embed_text(text)


def build_chain(scenario: dict[str, Any]):
    store = InMemoryVectorStore(BigramHashEmbeddings())
    # Each document keeps its chunk id as its LangChain id and the loader's ids as metadata.
    store.add_documents([Document(id=chunk["chunkId"], page_content=chunk["text"], metadata=chunk_metadata(chunk)) for chunk in scenario["chunks"]])
    model = ChatOpenAI(
        model=scenario["model"],
        base_url=FAKE_OPENAI_BASE_URL,
        api_key="golden",
        max_retries=0,
        http_client=httpx.Client(transport=fake_openai_transport(scenario)),
    )
    prompt = ChatPromptTemplate.from_messages([("system", "只根据下面的资料回答问题。\n\n{context}"), ("human", "{question}")])
    format_documents = RunnableLambda(lambda documents: "\n\n".join(document.page_content for document in documents)).with_config(run_name="format_documents")
    retriever = store.as_retriever(search_kwargs={"k": scenario["topK"]})
    return ({"context": retriever | format_documents, "question": RunnablePassthrough()} | prompt | model | StrOutputParser()).with_config(run_name="policy_rag_chain")


def ask(chain, scenario: dict[str, Any]) -> str:
    # LangChain's own metadata option: the instrumentation writes it to OpenInference's `metadata`, where ragscope reads the linkage.
    # One branch of the parallel step at a time (LangChain runs them on a thread pool), so span ids and order are reproducible.
    return chain.invoke(scenario["question"], config={"metadata": scenario["linkage"], "max_concurrency": 1})


if __name__ == "__main__":
    run_golden_app(__doc__, "policy-assistant-langchain-python", build_chain, LangChainInstrumentor(), ask)
