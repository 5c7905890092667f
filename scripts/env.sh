# Sourced by the scripts: puts the Swift toolchain on PATH when it is installed but not there.
if ! command -v swift >/dev/null 2>&1; then
  for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    if [ -x "$candidate/swift" ]; then PATH="$candidate:$PATH"; export PATH; break; fi
  done
fi
command -v swift >/dev/null 2>&1 || { echo "swift is not installed (expected at /opt/swift)" >&2; exit 1; }
