# Sourced by run.sh and backend.sh on the GPU machine: the Vulkan loader and glvnd's libraries
# unpacked from .gl (as the machine's README prescribes; with the loader alone the NVIDIA ICD
# returns no vkCreateInstance), the NVIDIA driver's files named, and the prepared binaries in
# .diag unpacked into /tmp.
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
export XDG_RUNTIME_DIR=/tmp
export __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json}
for archive in .diag/*.xz; do
    binary=/tmp/$(basename "$archive" .xz)
    xz -dc "$archive" > "$binary" && chmod +x "$binary"
done
