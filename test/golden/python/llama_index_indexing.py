"""
A LlamaIndex app building its index with the instrumentation already on, as an
app that indexes at start-up does: VectorStoreIndex.from_documents splits the
documents (SentenceSplitter) and embeds the nodes. Traced by Arize's
openinference-instrumentation-llama-index, this writes two traces and neither
is a RAG request: one of CHAIN spans (SentenceSplitter.__call__ and its
steps), one of EMBEDDING spans (get_text_embedding_batch). No question is
asked. test/data/traces-without-request/README.md says how the stored
recording was made and which test replays it.

    python llama_index_indexing.py OUT.otlp.json
"""

from __future__ import annotations

import sys

from bigram_hash_embedding import BigramHashEmbedding
from golden_app import record_otlp_json
from llama_index.core import Document, Settings, VectorStoreIndex
from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

DOCUMENTS = [
    "Employees who have worked for twelve months are entitled to five days of paid annual leave. " * 20,
    "Unused annual leave may be carried over to the next year, up to five days.",
]

if __name__ == "__main__":
    Settings.embed_model = BigramHashEmbedding(model_name="bigram-hash-64")
    record_otlp_json(sys.argv[1], "policy-assistant-llama-index", 0x1008, LlamaIndexInstrumentor(), lambda: VectorStoreIndex.from_documents([Document(text=text) for text in DOCUMENTS]))
