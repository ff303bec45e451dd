#!/usr/bin/env bash
# Installs what building servo-fleet needs beyond Rust itself, only if missing:
# Debian's clang-16, llvm-16 and wasi-libc compile the engine's C part (QuickJS)
# for wasm32-wasip2; nasm assembles OpenH264's (recordings); ffmpeg checks
# recordings in the tests. The Rust toolchain and the wasm32-wasip2 target come from
# rust-toolchain.toml through rustup.
set -euo pipefail
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"

missing=()
command -v clang-16 >/dev/null || missing+=(clang-16)
command -v llvm-ar-16 >/dev/null || missing+=(llvm-16)
[ -f /usr/lib/wasm32-wasi/libc.a ] || missing+=(wasi-libc)
command -v node >/dev/null || missing+=(nodejs)   # the MCP TypeScript SDK test client
command -v npm >/dev/null || missing+=(npm)
# OpenH264's x86 assembly (recordings' encoder; without it the C++ is slower).
command -v nasm >/dev/null || missing+=(nasm)
# ffprobe/ffmpeg: the recordings tests read back the MP4s the fleet writes.
command -v ffprobe >/dev/null || missing+=(ffmpeg)
# The MCP Python SDK test client's venv.
python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
rustup show active-toolchain >/dev/null   # installs the pinned toolchain
# rustup adds a toolchain file's targets only when it installs the toolchain
# itself; a machine that already had 1.95.0 lacks wasm32-wasip2 otherwise.
if ! rustup target list --installed | grep -qx wasm32-wasip2; then
  echo "setup: adding the wasm32-wasip2 target"
  rustup target add wasm32-wasip2
fi
