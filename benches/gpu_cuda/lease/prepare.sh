#!/usr/bin/env bash
# Builds and packs here (no GPU needed) what the three calls of a lease carry (README.md).
# Needs Embree 3 installed here (benches/peers/run.sh) and pip's access to PyPI for Warp.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
grep -qx '/.dev1/' .git/info/exclude 2>/dev/null || printf '/.gl/\n/.dev1/\n/.dev2/\n/.dev3/\n' >> .git/info/exclude
cargo build --release -p meshcast-gpu --features cuda --example kernel_inputs
tests=$(cargo test --release -p meshcast-gpu --test gpu --no-run --message-format=json \
    | python3 -c 'import json,sys; print([m["executable"] for m in map(json.loads, sys.stdin) if m.get("executable")][-1])')
cargo build --release --features embree --manifest-path benches/peers/Cargo.toml
wheel=$(bindings/python/build-wheel.sh "$(mktemp -d)" | tail -1)
rm -rf .dev1 .dev2 .dev3 && mkdir -p .dev1 .dev2 .dev3 .gl
pack() { strip -o "/tmp/$2" "$1" && xz -T0 -6 -c "/tmp/$2" > "$3/$2.xz"; }
pack "$tests" gpu_tests .dev1
pack target/release/examples/kernel_inputs kernel_inputs .dev1
pack benches/peers/target/release/meshcast-peers meshcast-peers .dev1
for lib in libembree3.so.3 libtbb.so.12; do xz -T0 -6 -c "/lib/x86_64-linux-gnu/$lib" > ".dev1/$lib.xz"; done
cp "$wheel" .dev2/
# The Vulkan loader and glvnd (Debian's packages, unpacked there).
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
mkdir -p /tmp/amd64/partial && apt-get $o update -qq
(cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
# Warp 1.19: warp.so compressed and cut in three, each call's share sized to its 64 MiB.
w=$(mktemp -d)
pip download -q warp-lang==1.19.0 --no-deps --platform manylinux_2_28_x86_64 --only-binary=:all: -d "$w"
(cd "$w" && unzip -q warp_lang-*.whl && xz -7 -T0 -c warp/bin/warp.so > warp.so.xz \
    && rm warp/bin/warp.so warp/bin/warp-clang.so && tar -cJf rest.tar.xz warp warp_lang-*.dist-info)
cp "$w/rest.tar.xz" .dev3/
tree=$(git ls-files -z | xargs -0 du -cb | tail -1 | cut -f1)
room() { echo $((64 * 1024 * 1024 - tree - $(du -cb "$@" | tail -1 | cut -f1) - 1000000)); }
first=$(room .gl .dev1) second=$(room .dev2)
head -c "$first" "$w/warp.so.xz" > .dev1/warp.part00
tail -c +$((first + 1)) "$w/warp.so.xz" | head -c "$second" > .dev2/warp.part01
tail -c +$((first + second + 1)) "$w/warp.so.xz" > .dev3/warp.part02
du -sh .gl .dev1 .dev2 .dev3
