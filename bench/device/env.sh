# env.sh: sourced (". bench/device/env.sh") from the repository root by the
# other scripts of bench/device/ to make a GPU machine that has a driver but no
# Vulkan loader ready to run a build made elsewhere. It unpacks the carried
# loader packages (.gl/*.deb) into / where libvulkan.so.1 or libEGL.so.1 is
# missing, puts the carried validation layer on the layer path where none is
# installed, points the loader and EGL at the NVIDIA driver's files where no
# driver manifest is installed, and picks the device the tools are run on.
# It defines the functions the scripts share (unpack_build, record_machine,
# limit_for, batch_log_option, boids_library_path, start_sampler, stop_sampler, has_option,
# step, LINE_BUFFERED).
#
# Reads: DEVICE (the selector passed to --device; default BITONIC_DEVICE, else
# NVIDIA where nvidia-smi lists a GPU, else vulkan), GL_DEBS (default .gl),
# PACK_DIR (default .pack), GPU_INDEX (the GPU nvidia-smi samples, default 0),
# BUDGET (seconds the calling script may take in all, default 560).
# Sets: DEVICE, BITONIC_TEST_DEVICE (default DEVICE), VK_DRIVER_FILES,
# __EGL_VENDOR_LIBRARY_FILENAMES, VK_LAYER_PATH, LD_LIBRARY_PATH,
# VALIDATION_LAYER (the layer's manifest, or "none").
# Works under `set -eu`; plain POSIX sh as well as bash.

gl_debs=${GL_DEBS:-.gl}
PACK_DIR=${PACK_DIR:-.pack}

# The loader and glvnd (libvulkan1, libegl1, libglvnd0, libgles2, ...): into /,
# as the machine's own would be. The validation layer goes aside (below).
if ls "$gl_debs"/*.deb > /dev/null 2>&1; then
  if ! ldconfig -p 2> /dev/null | grep -q 'libvulkan\.so\.1 ' || ! ldconfig -p 2> /dev/null | grep -q 'libEGL\.so\.1 '; then
    for f in "$gl_debs"/*.deb; do
      case "$f" in *validationlayers*) ;; *) dpkg -x "$f" / ;; esac
    done
    ldconfig
  fi
fi

# The Khronos validation layer: the installed one, else the carried package
# unpacked under /tmp (unpacked into /, its files have broken other packages).
VALIDATION_LAYER=none
for manifest in /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json \
                /etc/vulkan/explicit_layer.d/VkLayer_khronos_validation.json; do
  if [ -f "$manifest" ]; then VALIDATION_LAYER=$manifest; break; fi
done
if [ "$VALIDATION_LAYER" = none ] && ls "$gl_debs"/vulkan-validationlayers_*.deb > /dev/null 2>&1; then
  mkdir -p /tmp/bitonic-vvl
  dpkg -x "$(ls "$gl_debs"/vulkan-validationlayers_*.deb | head -n 1)" /tmp/bitonic-vvl
  export VK_LAYER_PATH=/tmp/bitonic-vvl/usr/share/vulkan/explicit_layer.d${VK_LAYER_PATH:+:$VK_LAYER_PATH}
  export LD_LIBRARY_PATH=/tmp/bitonic-vvl/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  VALIDATION_LAYER=/tmp/bitonic-vvl/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json
fi

# The NVIDIA driver's manifests where the loader and glvnd would not find a
# driver by themselves (a container that mounts the driver under /usr/local/nvidia).
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia_egl=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -z "${VK_ICD_FILENAMES:-}" ] && [ -f "$nvidia_icd" ] &&
   ! ls /etc/vulkan/icd.d/*nvidia*.json /usr/share/vulkan/icd.d/*nvidia*.json > /dev/null 2>&1; then
  export VK_DRIVER_FILES=$nvidia_icd
fi
if [ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}" ] && [ -f "$nvidia_egl" ] &&
   ! ls /usr/share/glvnd/egl_vendor.d/*nvidia*.json /etc/glvnd/egl_vendor.d/*nvidia*.json > /dev/null 2>&1; then
  export __EGL_VENDOR_LIBRARY_FILENAMES=$nvidia_egl
fi

# The device: what the caller names, else the NVIDIA GPU where there is one.
if [ -z "${DEVICE:-}" ]; then
  if [ -n "${BITONIC_DEVICE:-}" ]; then
    DEVICE=$BITONIC_DEVICE
  elif nvidia-smi -L 2> /dev/null | grep -q '^GPU'; then
    DEVICE=NVIDIA
  else
    DEVICE=vulkan
  fi
fi
export DEVICE
export BITONIC_TEST_DEVICE=${BITONIC_TEST_DEVICE:-$DEVICE}

# The call's time: BUDGET seconds (default 560, inside the device tool's 600)
# from when env.sh was sourced. limit_for WANTED RESERVE prints the seconds a
# step may take: WANTED, or less so that RESERVE seconds are left for what
# follows; 0 when fewer than 10 are left (skip the step).
BUDGET_END=$((SECONDS + ${BUDGET:-560}))
limit_for() {
  left=$((BUDGET_END - SECONDS - $2))
  if [ "$left" -lt 10 ]; then echo 0; elif [ "$left" -lt "$1" ]; then echo "$left"; else echo "$1"; fi
}

# step TEXT: one line of progress on stderr, with the time, so a call's output
# says where its minutes went.
step() {
  echo "[$(date -u +%H:%M:%S)] $*" >&2
}

# unpack_build SPEC: prints the folder that holds a build's programs
# (tools/bitonic/bitonic, tests/, apps/boids/). SPEC is a folder (a CMake build
# or an unpacked pack), a pack tarball (NAME.tar.xz: unpacked next to it as
# NAME/), or a pack name (PACK_DIR/NAME.tar.xz).
unpack_build() {
  spec=$1
  case "$spec" in
    *.tar.xz) tarball=$spec ;;
    *) if [ -d "$spec" ]; then echo "$spec"; return 0; fi
       tarball=$PACK_DIR/$spec.tar.xz ;;
  esac
  if [ ! -f "$tarball" ]; then
    echo "env.sh: no build '$spec' (no such folder, nor $tarball)" >&2
    return 1
  fi
  parent=$(dirname "$tarball")
  name=$(basename "$tarball" .tar.xz)
  rm -rf "${parent:?}/$name"
  tar -xJf "$tarball" -C "$parent"
  if [ ! -d "$parent/$name" ]; then
    echo "env.sh: $tarball holds no folder $name/ (make it with bench/device/pack.sh)" >&2
    return 1
  fi
  echo "$parent/$name"
}

# boids_library_path BUILD: the library path for the build's flock: the
# libraries its pack carries (lib/: GLFW, libpng and theirs) first, for that
# program alone, as in
#   timeout 60 env LD_LIBRARY_PATH="$(boids_library_path "$build")" "$build/apps/boids/bitonic-boids" ...
boids_library_path() {
  echo "$(cd "$1" && pwd)/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

# has_option OPTION COMMAND...: whether COMMAND --help names OPTION (so a
# script can run an older build that lacks an option), as in
# has_option --batch-log "$tool" bench.
has_option() {
  option=$1
  shift
  "$@" --help 2>&1 | grep -q -e "$option\\b"
}

# batch_log_option TOOL FILE: the option that makes this build's bench write
# the wall-clock span of each timed batch into FILE (for stability.py):
# --tune batch-log=FILE in the tools that have --tune, --batch-log FILE in the
# ones before; nothing where the build has neither.
batch_log_option() {
  if "$1" bench --tune help 2> /dev/null | grep -q '^ *batch-log='; then
    echo "--tune batch-log=$2"
  elif has_option --batch-log "$1" bench; then
    echo "--batch-log $2"
  fi
}

# record_machine FILE [BUILD...]: the GPU (name, driver, compute capability,
# clocks, power limit, memory), the host, the device selector, the validation
# layer, and what each build's pack says of itself (PACKED.txt).
record_machine() {
  file=$1
  shift
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -srm), $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) memory"
    echo "device selector: $DEVICE"
    echo "validation layer: $VALIDATION_LAYER"
    echo "VK_DRIVER_FILES: ${VK_DRIVER_FILES:-unset}"
    if command -v nvidia-smi > /dev/null 2>&1; then
      nvidia-smi --query-gpu=index,name,driver_version,compute_cap,clocks.max.sm,clocks.max.mem,clocks.sm,clocks.mem,power.limit,memory.total,pstate \
        --format=csv 2>&1 || true
      nvidia-smi -q -d CLOCK 2> /dev/null | sed -n '/Applications Clocks/,/Max Clocks/p' | head -n 12 || true
    else
      echo "nvidia-smi: none (no NVIDIA GPU named here)"
    fi
    for build in "$@"; do
      echo "build $build:"
      sed 's/^/  /' "$build/PACKED.txt" 2> /dev/null || echo "  (no PACKED.txt: not made by bench/device/pack.sh)"
    done
  } > "$file" 2>&1
}

# start_sampler FILE: the SM clock of GPU GPU_INDEX (default 0; and why it is
# low, power, temperature, where the driver reports them) every 100 ms into FILE, in the form
# bench/report/stability.py reads; an empty FILE where there is no nvidia-smi.
# stop_sampler ends it.
SAMPLER_PID=
start_sampler() {
  : > "$1"
  command -v nvidia-smi > /dev/null 2>&1 || return 0
  fields=timestamp,clocks.sm,clocks_event_reasons.active,power.draw,temperature.gpu
  # Older drivers name the reasons field clocks_throttle_reasons: fall back to the clock alone.
  gpu=${GPU_INDEX:-0}
  nvidia-smi -i "$gpu" --query-gpu=$fields --format=csv,noheader > /dev/null 2>&1 || fields=timestamp,clocks.sm
  nvidia-smi -i "$gpu" --query-gpu=$fields --format=csv,noheader -lms 100 > "$1" 2> /dev/null &
  SAMPLER_PID=$!
}
stop_sampler() {
  if [ -n "$SAMPLER_PID" ]; then
    kill "$SAMPLER_PID" 2> /dev/null || true
    wait "$SAMPLER_PID" 2> /dev/null || true
    SAMPLER_PID=
  fi
}

# LINE_BUFFERED: a prefix ("stdbuf -oL" where stdbuf exists) that makes a
# program flush its stdout line by line, so the rows it printed before a
# timeout killed it are kept: timeout 60 $LINE_BUFFERED "$tool" bench ...
LINE_BUFFERED=
if command -v stdbuf > /dev/null 2>&1; then LINE_BUFFERED="stdbuf -oL"; fi
