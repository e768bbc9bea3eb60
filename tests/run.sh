#!/usr/bin/env bash
# Runs ferrocl's test suite on this machine's Vulkan device (lavapipe where there is no GPU),
# with the Vulkan validation layer on, after installing what the tests need (Debian/Ubuntu).
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=$([ "$(id -u)" = 0 ] && echo "" || echo sudo)
need="ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-headers libvulkan1 mesa-vulkan-drivers vulkan-validationlayers spirv-tools clinfo gcc valgrind"
missing=$(for p in $need; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
if ! command -v cargo >/dev/null; then
    [ -x "$HOME/.cargo/bin/cargo" ] || curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
    export PATH="$HOME/.cargo/bin:$PATH"
fi
cargo build --lib --bins
# The suite takes minutes: a hang fails it at this limit (cargo names the test that has been
# running), far inside CI's own.
timeout --kill-after=30s 40m cargo test --all-targets
