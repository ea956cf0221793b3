# Shared by scripts/run, scripts/test, scripts/bench and scripts/fuzz: install what is missing, build.
# Sourced, not run.

GRUNDY_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GRUNDY_PACKAGES=(
  cmake g++ make pkg-config ccache time gcovr
  libhdf5-dev hdf5-tools libboost-program-options-dev libgtest-dev zlib1g-dev libdeflate-dev
  libblosc-dev hdf5-filter-plugin-blosc-serial
  python3 python3-h5py python3-numpy python3-matplotlib python3-pytest python3-dev pybind11-dev
  python3-xarray python3-h5netcdf netcdf-bin
  openmpi-bin libopenmpi-dev
  libcpp-httplib-dev libjs-leaflet libpng-dev chromium chromium-driver python3-selenium
  clang libfuzzer-14-dev libomp-14-dev
)

# Installs the Debian packages that are missing (and only those), without questions.
grundy_install_packages() {
  local missing=()
  for p in "${GRUNDY_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "Installing missing packages: ${missing[*]}" >&2
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "error: need root (or sudo) to install: ${missing[*]}" >&2; return 2; }
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q >&2 || return 2
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 || return 2
}

# grundy_build_targets DIR SRC "TARGETS" [cmake args...]: configure the tree SRC into DIR (once;
# again only when the arguments change something) and build only TARGETS (space-separated; ""
# builds everything). Compiles go through ccache when it is installed: a second build tree, a
# fresh clone or another revision then costs only what changed.
grundy_build_targets() {
  local dir=$1 src=$2 targets=$3
  shift 3
  local launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S "$src" -B "$dir" "${launcher[@]}" "$@" >/dev/null || return 2
  local target_args=() t
  for t in $targets; do target_args+=(--target "$t"); done
  # Paths under the tree hashed as relative ones: another clone or revision of a file hits.
  CCACHE_BASEDIR=${CCACHE_BASEDIR:-$src} cmake --build "$dir" -j "$(nproc)" "${target_args[@]}" || return 2
}

# grundy_build DIR [cmake args...]: configure (once) and build everything.
grundy_build() {
  local dir=$1; shift
  grundy_build_targets "$dir" "$GRUNDY_ROOT" "" "$@"
}

# The one Release build, build/, that scripts/run, scripts/test and scripts/bench share: the same
# options in all three, so that none of them makes the others rebuild. grundy_release TARGETS.
GRUNDY_RELEASE_OPTIONS=(-DCMAKE_BUILD_TYPE=Release -DGRUNDY_WERROR=ON)
grundy_release() {
  grundy_build_targets "$GRUNDY_ROOT/build" "$GRUNDY_ROOT" "$1" "${GRUNDY_RELEASE_OPTIONS[@]}"
}

# grundy_median N CMD...: runs CMD N times (each prints one line, seconds first) and prints the
# line with the median seconds (scripts/bench, scripts/bench_strip). On a shared host the same
# run varies by 10% or more from minute to minute; a median of a few runs is what README shows.
grundy_median() {
  local n=$1 i
  shift
  for ((i = 0; i < n; i++)); do "$@"; done | sort -g | sed -n "$(((n + 1) / 2))p"
}
