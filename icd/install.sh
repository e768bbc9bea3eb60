#!/usr/bin/env bash
# Installs ferrocl as a system OpenCL driver (ICD) on Debian/Ubuntu, then runs a demo on it.
#   icd/install.sh              install the packages it needs, build, install, register, demo
#   icd/install.sh --uninstall  remove the library and its registration
# Environment: PREFIX (default /usr/local), VENDORS (default /etc/OpenCL/vendors).
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=${PREFIX:-/usr/local}
VENDORS=${VENDORS:-/etc/OpenCL/vendors}
LIB="$PREFIX/lib/ferrocl/libferrocl.so"
ICD="$VENDORS/ferrocl.icd"
SUDO=$([ "$(id -u)" = 0 ] && echo "" || echo sudo)

if [ "${1:-}" = --uninstall ]; then
    $SUDO rm -f "$ICD" "$LIB"
    $SUDO rmdir --ignore-fail-on-non-empty "$(dirname "$LIB")" 2>/dev/null || true
    echo "ferrocl uninstalled"
    exit 0
fi

# The loader, lavapipe (Vulkan on the CPU, for machines without a GPU), clinfo, and what the
# build links against.
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-headers clinfo libvulkan1 mesa-vulkan-drivers \
    gcc curl ca-certificates >/dev/null

# Debian's own rustc is too old for naga; use rustup's stable toolchain when cargo is missing.
if ! command -v cargo >/dev/null; then
    [ -x "$HOME/.cargo/bin/cargo" ] || curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
    export PATH="$HOME/.cargo/bin:$PATH"
fi

cargo build --release --bins --lib
$SUDO install -D -m 0755 target/release/libferrocl.so "$LIB"
$SUDO mkdir -p "$VENDORS"
echo "$LIB" | $SUDO tee "$ICD" >/dev/null
echo "ferrocl installed: $LIB, registered in $ICD"

clinfo -l
target/release/ferrocl-demo
