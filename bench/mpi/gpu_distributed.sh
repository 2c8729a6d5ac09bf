#!/bin/bash
# gpu_distributed.sh: the distributed sort (bitonic_mpi) on a GPU machine, one
# rank per GPU: 2^28 u32 keys and pairs on 1 and 2 ranks, the time of each
# phase (local sort, splitters, exchange, merge, balance; the maximum over the
# ranks, median of RUNS) and keys per second per GPU, from
# `bitonic bench --distributed`, which verifies every result.
#
#   sh bench/mpi/gpu_distributed.sh pack    on the Debian 12 build machine: downloads the
#                                           Open MPI runtime .deb files into .mpi/ (apt-get download)
#   bash bench/mpi/gpu_distributed.sh       on the GPU machine, from the repository root
#
# Needs there: a build of the tool with MPI made on the Debian machine (cmake
# finds Open MPI) and packed with ALLOW_MPI=1 sh bench/device/pack.sh, the
# loader packages of .gl/ (bench/device/env.sh sets them up, as for the other
# device scripts; bench/device/README.md says how to fetch them), and Open MPI:
# the one in PATH if there is one, else the .deb files of .mpi/ unpacked into
# $MPI_ROOT (no root needed, nothing installed system-wide; glibc 2.36 or
# newer, as Debian 12). A device call carries .gl, .pack and .mpi.
# Environment: LOGS (default "28"), TYPES (u32,pairs), RANKS ("1 2"), RUNS (5),
# MERGES ("auto host": the merge through each rank's GPU context, and on the
# CPU), BUILD (a pack name, tarball or build folder, as bench/device/tests.sh
# reads it), BITONIC (the tool, default the build's), DEVICES (the Vulkan
# devices of the ranks), SKIP_TESTS, OUT (where the report goes; default ./out).
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
mpi_debs="openmpi-bin openmpi-common libopenmpi3 libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7
  libfabric1 libucx0 libibverbs1 librdmacm1 libpsm2-2 libpsm-infinipath1 libnl-3-200 libnl-route-3-200 libmunge2
  libnuma1 libatomic1"

if [ "${1:-}" = pack ]; then
  rm -rf .mpi && mkdir -p .mpi && cd .mpi && apt-get download $mpi_debs && du -sh . && exit 0
  exit 1
fi

out=${OUT:-out}
mkdir -p "$out"
report="$out/distributed.txt"
: > "$report"
say() { echo "$@" | tee -a "$report"; }

# Open MPI: the machine's own, else the carried .deb files, unpacked and relocated
# (OPAL_PREFIX for Open MPI, PMIX_INSTALL_PREFIX and the component path for PMIx).
if command -v mpirun > /dev/null && [ -z "${MPI_FROM_DEBS:-}" ]; then
  mpirun=mpirun
else
  root=${MPI_ROOT:-/tmp/bitonic-mpi}
  if [ ! -x "$root/usr/bin/orterun" ]; then
    ls .mpi/*.deb > /dev/null 2>&1 || { say "no mpirun and no .mpi/*.deb: run 'sh bench/mpi/gpu_distributed.sh pack' on the build machine and carry .mpi"; exit 1; }
    mkdir -p "$root" && for f in .mpi/*.deb; do dpkg-deb -x "$f" "$root" || exit 1; done
  fi
  lib=$root/usr/lib/x86_64-linux-gnu
  export PATH=$root/usr/bin:$PATH
  export LD_LIBRARY_PATH=$lib:$lib/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export OPAL_PREFIX=$root/usr
  export PMIX_INSTALL_PREFIX=$lib/pmix2
  export PMIX_MCA_mca_base_component_path=$lib/pmix2/lib/pmix
  mpirun=$root/usr/bin/orterun
fi
# The Vulkan loader, the validation layer and the NVIDIA driver's manifests, as
# for the other device scripts; then the build (a pack unpacked, or build/).
. bench/device/env.sh
default_build=build
[ -f "$PACK_DIR/bitonic-device.tar.xz" ] && default_build=bitonic-device
build=$(unpack_build "${BUILD:-$default_build}")
case "$build" in /*) ;; *) build=$here/$build ;; esac
bitonic=${BITONIC:-$build/tools/bitonic/bitonic}
missing=$(ldd "$bitonic" "$(command -v "$mpirun")" 2>&1 | grep "not found" | sort -u || true)
[ -z "$missing" ] || { say "missing libraries: $missing"; exit 1; }
as_root=""
[ "$(id -u)" -eq 0 ] && as_root="--allow-run-as-root"
# One host: shared memory (vader) through ob1 is the whole transport; no network
# components are opened. CMA (one-copy shared memory) needs ptrace rights that
# containers often lack; plain copies always work (set it to cma to compare).
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1} OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader} OMPI_MCA_mtl=${OMPI_MCA_mtl:-^ofi,psm,psm2}
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}

nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id --format=csv 2>&1 | tee -a "$report"
"$bitonic" info > "$out/info.txt" 2>&1 || true
# The Vulkan indices of the discrete GPUs (lavapipe, if present, is not one of them);
# DEVICES overrides them (for example "cpu cpu" to try the script without a GPU).
gpus=${DEVICES:-$(sed -n 's/^  \[\([0-9]*\)\] .*(discrete GPU.*/\1/p' "$out/info.txt" | tr '\n' ' ')}
[ -n "$gpus" ] || { say "no discrete GPU in bitonic info:"; cat "$out/info.txt"; exit 1; }
say "devices of the ranks, by node-local rank: $gpus; $("$mpirun" --version | head -n 1)"
lscpu | grep -E "Model name|^CPU\(s\)" | tee -a "$report"
{ nvidia-smi topo -m 2>/dev/null || true; } | head -n 4 | tee -a "$report"

# Rank r takes GPU r (modulo the GPUs there are), by its node-local rank.
per_rank_device='gpus=($GPUS); BITONIC_DEVICE=${gpus[$(( ${OMPI_COMM_WORLD_LOCAL_RANK:-0} % ${#gpus[@]} ))]} exec "$0" "$@"'
status=0
# First the distributed sort's own test on these GPUs, 2 ranks, the quick subset (every
# result compared with a single-process sort), unless SKIP_TESTS is set.
tests=$(dirname "$bitonic")/../../tests
if [ -z "${SKIP_TESTS:-}" ] && [ -x "$tests/test_mpi_sort" ]; then
  "$mpirun" $as_root --oversubscribe -n 2 -x GPUS="$gpus" bash -c "$per_rank_device" \
    "$tests/test_mpi_sort" default --quick 2>&1 | tail -n 5 | tee -a "$report"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
for log in ${LOGS:-28}; do
  for merge in ${MERGES:-auto host}; do
    for ranks in ${RANKS:-1 2}; do
      "$mpirun" $as_root --oversubscribe -n "$ranks" -x GPUS="$gpus" bash -c "$per_rank_device" \
        "$bitonic" bench --distributed --log "$log" --runs "${RUNS:-5}" --types "${TYPES:-u32,pairs}" \
        --merge "$merge" 2>&1 | tee -a "$report"
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    done
  done
done
say "exit status $status (the per-GPU rate is the total keys per second divided by the ranks)"
exit $status
