#!/usr/bin/env bash
# Installs what is missing (Debian packages: python3, python3-dev, python3-numpy, python3-pytest,
# python3-matplotlib), builds the library and the Python package crowdstep into
# build/python/python/crowdstep and installs the package for Debian's python3: into its
# site-packages when run as root (/usr/local/lib/python3.X/dist-packages), else into the user's
# (~/.local/lib/python3.X/site-packages). Afterwards `python3 -c 'import crowdstep'` works.
#   tools/python.sh               build and install
#   tools/python.sh --no-install  build only (use PYTHONPATH=build/python/python)
set -euo pipefail
cd "$(dirname "$0")/.."
install=1
for a in "$@"; do
  case "$a" in
    --no-install) install=0 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "tools/python.sh: unknown option $a" >&2; exit 2 ;;
  esac
done
tools/deps.sh python
py=/usr/bin/python3 # Debian's, whose numpy the package is built against
cmake -S . -B build/python -DCMAKE_BUILD_TYPE=Release -DCROWD_BUILD_TESTS=OFF -DCROWD_BUILD_BENCH=OFF \
  -DCROWD_BUILD_TOOLS=ON -DCROWD_BUILD_PYTHON=ON -DPython3_EXECUTABLE="$py" >/dev/null
cmake --build build/python -j"$(nproc)" --target crowd_python >/dev/null
pkg=build/python/python/crowdstep
echo "built: $pkg"
[ "$install" -eq 1 ] || exit 0
site=$("$py" -c 'import os, site; print(site.getsitepackages()[0] if os.geteuid() == 0 else site.getusersitepackages())')
mkdir -p "$site"
rm -rf "$site/crowdstep"
cp -r "$pkg" "$site/crowdstep"
# Checked from elsewhere, so that the installed copy is the one imported.
(cd / && "$py" -c 'import crowdstep; print("installed: crowdstep", crowdstep.__version__, "in", crowdstep.__path__[0])')
