"""Records deterministic ids with Python's hashlib, independently of ragscope's code.

The id of (prefix, parts) is prefix + "_" + the first 32 hex characters of
SHA-256 over, for each part, its UTF-8 bytes, a NUL, its length in UTF-16
code units (JavaScript's string length) as decimal digits, and a NUL.

Run: python3 test/data/ids/record_ids.py > test/data/ids/ids.json
"""
import hashlib
import json

CASES = [
    ("cr", ["trace", "0af7651916cd43dd8448eb211c80319c"]),
    ("cr", ["run", "run-2026-12-01", "case-17", "v3"]),
    ("cr", ["tenant", "acme", "trace", "0af7651916cd43dd8448eb211c80319c"]),
    ("cr", ["tenant", "acme", "run", "run-2026-12-01", "case-17", "v3"]),
    ("er", ["cr_5f2b8c0e2a9d4c1b8e7f6a5d4c3b2a19", "context_precision", "1.2.0"]),
    ("er", ["ab", "c"]),
    ("er", ["a", "bc"]),
    ("x", []),
    ("x", [""]),
    ("x", ["", ""]),
    ("er", ["退款政策", "émoji 🙂", "nul\u0000inside"]),
    ("cr", ["run", "a\u00001\u0000b", "c"]),
]


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def identifier(prefix: str, parts: list[str]) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8") + b"\x00" + str(utf16_length(part)).encode("ascii") + b"\x00")
    return f"{prefix}_{digest.hexdigest()[:32]}"


print(json.dumps([{"prefix": prefix, "parts": parts, "id": identifier(prefix, parts)} for prefix, parts in CASES], ensure_ascii=False, indent=1))
