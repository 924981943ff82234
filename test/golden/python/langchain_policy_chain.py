"""
The Python LangChain RAG chain of the golden policy question, shared by the
apps that trace it with different instrumentations (langchain_policy_rag.py:
Arize's OpenInference; langchain_policy_rag_traceloop.py: Traceloop's
OpenLLMetry): the chain of the JS goldens (scenarios/langchain-rag-chain.ts)
in Python — a VectorStoreRetriever over langchain-core's InMemoryVectorStore
(top 3), a step that formats the documents, the same prompt, ChatOpenAI over
the scripted endpoint of golden_app.py, and a string output parser. The
embedding is the JS goldens' character-bigram hash, so the store ranks the
chunks as the JS store does.
"""

from __future__ import annotations

from typing import Any

import httpx
from golden_app import FAKE_OPENAI_BASE_URL, chunk_metadata, embed_text, fake_openai_transport
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_openai import ChatOpenAI


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
