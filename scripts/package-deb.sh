#!/usr/bin/env bash
# Builds the Debian package dist/imgwarm_<version>_<arch>.deb with dpkg-deb: the files of
# `scripts/install.sh --prefix /usr` (binary, manual pages, completions, schemas, systemd examples),
# Depends computed by dpkg-shlibdeps from the binary, control, copyright and changelog. Then runs
# lintian on it when lintian is installed.
#
#   scripts/package-deb.sh              # builds (release, --static-swift-stdlib) and packages
#   scripts/package-deb.sh --no-build   # packages the last release build
#
# Needs dpkg-dev (dpkg-shlibdeps); not fakeroot: dpkg-deb --root-owner-group makes every file
# root's. Prints the path of the package on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build_flag=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build_flag=(--no-build); shift ;;
    *) echo "package-deb.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null || {
  echo "package-deb.sh: needs dpkg-deb and dpkg-shlibdeps (apt-get install dpkg-dev)" >&2; exit 1; }

# A placeholder until the project has a public home and a maintainer address of its own.
maintainer="imgwarm maintainers <imgwarm@example.org>"
homepage="https://github.com/imgwarm/imgwarm"

work=$(mktemp -d "${TMPDIR:-/tmp}/imgwarm-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
# dpkg-shlibdeps expects the debhelper layout: debian/control, and the package's files in
# debian/<package>/ with its DEBIAN folder.
stage="$work/pkg/debian/imgwarm"
mkdir -p "$stage/DEBIAN"
printf 'Source: imgwarm\n\nPackage: imgwarm\nArchitecture: any\n' > "$work/pkg/debian/control"
bash scripts/install.sh --prefix /usr --destdir "$stage" --no-manifest "${build_flag[@]}"

version=$("$stage/usr/bin/imgwarm" --version)
arch=$(dpkg --print-architecture)
doc="$stage/usr/share/doc/imgwarm"
date_rfc=$(date -u -R -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")

# Debian policy: manual pages compressed with gzip -9n, a changelog in the documentation folder.
gzip -9n "$stage"/usr/share/man/man1/*.1
install -m 0644 README.md "$doc/README.md"
install -m 0644 docs/usage.md "$doc/usage.md"
gzip -9n "$doc/README.md" "$doc/usage.md"
cat > "$work/changelog" <<EOF
imgwarm ($version) unstable; urgency=medium

  * Release $version: the prefetch, path, stats, clean, blacklist and
    version commands, with manual pages, shell completions, JSON Schemas
    and example systemd units.

 -- $maintainer  $date_rfc
EOF
gzip -9nc "$work/changelog" > "$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"

cat > "$doc/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: imgwarm
Source: $homepage

Files: *
Copyright: 2026 the imgwarm authors
License: Apache-2.0
Comment: The project has no license file yet; Apache-2.0 is a placeholder that matches the
 Swift components linked into the binary. Change it here when the project chooses its license.

Files: usr/bin/imgwarm
Copyright: 2026 the imgwarm authors
 2014-2026 Apple Inc. and the Swift project authors
License: Apache-2.0 with Runtime Library Exception
Comment: The binary contains the Swift standard library, Foundation and
 swift-argument-parser, linked statically (swift build --static-swift-stdlib).

License: Apache-2.0
 Licensed under the Apache License, Version 2.0 (the "License"); you may not use this file
 except in compliance with the License. You may obtain a copy of the License at
 http://www.apache.org/licenses/LICENSE-2.0
 .
 On Debian systems, the full text of the Apache License, Version 2.0 can be found in
 /usr/share/common-licenses/Apache-2.0.

License: Apache-2.0 with Runtime Library Exception
 Licensed under the Apache License, Version 2.0; see /usr/share/common-licenses/Apache-2.0.
 .
 Runtime Library Exception to the Apache 2.0 License: As an exception, if you use this Software
 to compile your source code and portions of this Software are embedded into the binary product
 as a result, you may redistribute such product without providing attribution as would
 otherwise be required by Sections 4(a), 4(b) and 4(d) of the License.
EOF
chmod 0644 "$doc/copyright"

# Depends: the libraries the binary links, as dpkg-shlibdeps finds them from the installed
# packages' shlibs and symbols files.
depends=$(cd "$work/pkg" && dpkg-shlibdeps -O "debian/imgwarm/usr/bin/imgwarm" | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "package-deb.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

installed_size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<EOF
Package: imgwarm
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: $depends
Suggests: bash-completion
Section: web
Priority: optional
Homepage: $homepage
Description: warms SDWebImage disk caches from lists of image URLs
 imgwarm downloads lists of image URLs through libcurl (HTTP/2, retries,
 a persisted blacklist of failed URLs), validates every image with
 ImageMagick, and stores each one exactly where and how SDWebImage's disk
 cache would, so an iOS or macOS app finds them as its own cache hits. It
 also expires and trims that cache with SDWebImage's semantics and writes
 JSON reports.
 .
 Typical uses: a CI job that seeds an app's cache before UI tests, and cron
 or systemd timers that keep a shared cache warm and within its budget.
 Example systemd units are in /usr/share/doc/imgwarm/examples/systemd.
EOF
find "$stage" -type d -exec chmod 0755 {} +
(cd "$stage" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum > DEBIAN/md5sums)
chmod 0644 "$stage/DEBIAN/md5sums"

mkdir -p dist
package="dist/imgwarm_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$package" >/dev/null
echo "package-deb.sh: built $package (Depends: $depends)" >&2

if command -v lintian >/dev/null; then
  # Tags left on purpose are overridden in scripts/lintian-overrides with the reason.
  lintian --fail-on error,warning --suppress-tags-from-file scripts/lintian-overrides "$package" >&2 || {
    echo "package-deb.sh: lintian reported problems" >&2; exit 1; }
  echo "package-deb.sh: lintian: no errors or warnings" >&2
else
  echo "package-deb.sh: lintian is not installed: not checked" >&2
fi
echo "$root/$package"
