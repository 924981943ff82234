"""The LlamaIndex golden apps' embedding model: golden_app.embed_text, the JS goldens' embedding; no model file, no network."""

from __future__ import annotations

from golden_app import embed_text
from llama_index.core.embeddings import BaseEmbedding


class BigramHashEmbedding(BaseEmbedding):
    """An embedding model that needs no model file and no network."""

    def _get_text_embedding(self, text: str) -> list[float]:
        return embed_text(text)

    def _get_query_embedding(self, query: str) -> list[float]:
        return embed_text(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return embed_text(query)
