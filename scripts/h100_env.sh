# h100_env.sh: sourced by the GPU-machine scripts (h100_final.sh, h100_large.sh,
# h100_wide_debug.sh, h100_cpu_check.sh) from the repository root. Unpacks
# build-h100.tar.xz (scripts/h100_pack.sh) as build/, installs the Vulkan loader
# and glvnd from .gl/ where the machine lacks them, puts the validation layer
# from .gl/ on the layer path, and points the loader and EGL at the NVIDIA driver.
[ -f build-h100.tar.xz ] && tar -xJf build-h100.tar.xz && ln -sfn build-h100 build
if ! ldconfig -p | grep -q libvulkan.so.1; then
  for f in .gl/*.deb; do case "$f" in *validationlayers*) ;; *) dpkg -x "$f" /;; esac; done
  ldconfig
fi
if [ ! -f /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json ]; then
  mkdir -p /tmp/vvl && dpkg -x .gl/vulkan-validationlayers_*.deb /tmp/vvl
  export VK_LAYER_PATH=/tmp/vvl/usr/share/vulkan/explicit_layer.d
  export LD_LIBRARY_PATH=/tmp/vvl/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
if [ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]; then
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
