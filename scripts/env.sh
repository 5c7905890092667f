# Sourced by the scripts: puts the Swift toolchain on PATH when it is installed but not there.
if ! command -v swift >/dev/null 2>&1; then
  for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    if [ -x "$candidate/swift" ]; then PATH="$candidate:$PATH"; export PATH; break; fi
  done
fi
command -v swift >/dev/null 2>&1 || { echo "swift is not installed (expected at /opt/swift)" >&2; exit 1; }

# The toolchain's driver (swiftc, swift-help, swift-frontend --version) makes a
# TemporaryDirectory.XXXXXX folder in TMPDIR at almost every call and leaves it there: six a build,
# 1,200 in a day of work here (issue 50). The scripts run swift with a TMPDIR of its own, made for
# the call and removed after it (with whatever the tests left there: they clean up after
# themselves, so only the driver's folders are ever in it).
swift() {
  local own status=0
  own=$(mktemp -d "${TMPDIR:-/tmp}/imgwarm-swift.XXXXXX") || return 1
  # As /tmp is: the tests run programs as other users (nobody), which must reach their files.
  chmod 1777 "$own"
  TMPDIR=$own command swift "$@" || status=$?
  rm -rf "$own"
  return "$status"
}
