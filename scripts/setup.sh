# Shared by scripts/run, scripts/test and scripts/bench: install what is missing, build.
# Sourced, not run.

GRUNDY_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GRUNDY_PACKAGES=(
  cmake g++ make pkg-config
  libhdf5-dev hdf5-tools libboost-program-options-dev libgtest-dev zlib1g-dev libdeflate-dev
  libblosc-dev hdf5-filter-plugin-blosc-serial
  python3 python3-h5py python3-numpy python3-matplotlib python3-pytest python3-dev pybind11-dev
  python3-xarray python3-h5netcdf netcdf-bin
  openmpi-bin libopenmpi-dev
  libcpp-httplib-dev libjs-leaflet libpng-dev chromium chromium-driver python3-selenium
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

# grundy_build DIR [cmake args...]: configure (once) and build.
grundy_build() {
  local dir=$1; shift
  cmake -S "$GRUNDY_ROOT" -B "$dir" "$@" >/dev/null || return 2
  cmake --build "$dir" -j "$(nproc)" || return 2
}
