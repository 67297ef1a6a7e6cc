# Sourced by each call of a lease (README.md beside this file): Vulkan's loader and glvnd from
# .gl (once per machine), NVIDIA's ICD named, the carried builds unpacked into /tmp, Embree's
# libraries on the loader's path.
[ -e /tmp/.gl-done ] || { for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig; touch /tmp/.gl-done; }
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json XDG_RUNTIME_DIR=/tmp
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export OUT=${OUT:-/tmp/out} PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=/tmp/lib
mkdir -p "$OUT" /tmp/w /tmp/lib
for dir in .dev1 .dev2 .dev3; do
    [ -d $dir ] || continue
    for archive in $dir/*.xz; do
        [ -e "$archive" ] || continue
        case $archive in *.tar.xz) continue ;; esac
        binary=/tmp/$(basename "$archive" .xz)
        case $binary in /tmp/lib*.so*) binary=/tmp/lib/$(basename "$binary") ;; esac
        xz -dc "$archive" > "$binary" && chmod +x "$binary"
    done
    cp $dir/warp.part* /tmp/w/ 2>/dev/null
done
# The GPU test binary looks for the assets where it was built.
if [ -x /tmp/gpu_tests ]; then
    built=$(strings /tmp/gpu_tests | grep -o -m1 '/[^ ]*/crates/testkit' | head -1)
    root=$(dirname "$(dirname "$built")")
    if [ -n "$built" ] && [ ! -e "$root" ]; then mkdir -p "$(dirname "$root")"; ln -sfn "$PWD" "$root"; fi
fi
