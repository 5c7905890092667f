#!/usr/bin/env bash
# End-to-end checks of the ways imgwarm is installed (run by scripts/test.sh after `swift test`):
#   1. scripts/install.sh --prefix TMP: it prints no compiler warning, and counts the files it
#      installed and --uninstall those it removed truly; the binary runs without the Swift toolchain (no run path,
#      ldd shows only Debian's libraries, it runs with /opt/swift hidden); the manual pages and
#      completions match the current option definitions; man renders them; bash completes enum
#      values and list files; the systemd examples verify; a second install changes nothing and
#      drops files the new one no longer has; --uninstall removes everything.
#   2. scripts/package-deb.sh: lintian clean (errors and warnings), Depends from dpkg-shlibdeps;
#      dpkg -i, then as user nobody with /opt/swift hidden: --version and a prefetch from the
#      loopback test server; man, bash completion and systemd-analyze on the installed files;
#      dpkg -r leaves none of its files. Needs root: skipped, with the reason, otherwise.
# A check whose tool is missing is skipped with the reason. Ends with "packaging: N passed, ...".
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
source scripts/env.sh

passed=0 failed=0 skipped=0
pass() { passed=$((passed + 1)); echo "  ok    $1"; }
fail() { failed=$((failed + 1)); echo "  FAIL  $1"; [ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/        /' | head -n 40; }
skip() { skipped=$((skipped + 1)); echo "  skip  $1"; }
check() { local name=$1; shift; local out; if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$out"; fi; }
is_root() { [ "$(id -u)" -eq 0 ]; }

# The tools these checks use, installed when missing (root only).
wanted=(dpkg-dev lintian man-db groff-base bash-completion)
missing=()
for package in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ] && is_root; then
  echo "test-install: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/imgwarm-test-install.XXXXXX")
chmod 0755 "$work"
server_pid=""
package_installed=false
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if $package_installed; then dpkg -r imgwarm >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# The current definitions: the debug build of these sources (what `swift test` just tested).
echo "== building the debug imgwarm and the loopback test server"
swift build --product imgwarm 2>&1 | tail -n 1
swift build --product imgwarm-testserver 2>&1 | tail -n 1
debug_bin=$(swift build --show-bin-path)
current="$debug_bin/imgwarm"
version=$("$current" --version)
date=$(git log -1 --format=%cd --date=format-local:%Y-%m-%d 2>/dev/null || date -u +%Y-%m-%d)
export SOURCE_DATE_EPOCH=$(date -u -d "$date" +%s)
bash scripts/generate-docs.sh --binary "$current" --output "$work/expected" --date "$date" >/dev/null 2>&1

# Runs "$@" with /opt/swift replaced by an empty folder (a private mount namespace), and the
# environment emptied. Returns 125 when this machine cannot do that.
hide_swift() {
  if is_root && [ -d /opt/swift ] && command -v unshare >/dev/null; then
    unshare --mount -- sh -c 'mount -t tmpfs tmpfs /opt/swift 2>/dev/null || exit 125; [ -z "$(ls -A /opt/swift)" ] || exit 125; exec "$@"' sh "$@"
  else
    return 125
  fi
}

# ldd of $1 shows only libraries that Debian packages own, none not found, nothing of Swift.
check_libraries() {
  local binary=$1 listing problems="" path owner
  listing=$(ldd "$binary")
  if grep -q "not found" <<< "$listing"; then problems+=$'missing library\n'; fi
  if grep -qiE "/opt/swift|libswift|libFoundation|libdispatch" <<< "$listing"; then problems+=$'Swift library linked dynamically\n'; fi
  while read -r path; do
    owner=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$(readlink -f "$path")" 2>/dev/null || dpkg -S "/usr$path" 2>/dev/null || true)
    [ -n "$owner" ] || problems+="$path belongs to no Debian package"$'\n'
  done < <(grep -oE '/[^ ]+\.so[^ ]*' <<< "$listing" | sort -u)
  if readelf -d "$binary" | grep -qE "RPATH|RUNPATH"; then problems+=$'has a run path\n'; fi
  [ -z "$problems" ] || { printf '%s%s\n' "$problems" "$listing"; return 1; }
}

# Every page of $2 (a man1 folder) equals the page generated from the current definitions, and
# no page is missing or extra. $1 is the suffix of the installed pages ("" or ".gz").
check_pages_current() {
  local suffix=$1 folder=$2 page name differences=""
  local expected installed
  expected=$(cd "$work/expected/man" && ls | sort)
  installed=$(cd "$folder" && ls imgwarm*.1"$suffix" | sed "s/$suffix\$//" | sort)
  [ "$expected" = "$installed" ] || { diff <(echo "$expected") <(echo "$installed"); return 1; }
  for name in $expected; do
    if [ -n "$suffix" ]; then zcat "$folder/$name$suffix" > "$work/page"; else cp "$folder/$name" "$work/page"; fi
    cmp -s "$work/page" "$work/expected/man/$name" || differences+="$name differs"$'\n'
  done
  [ -z "$differences" ] || { echo "$differences"; return 1; }
}

# Independently of generate-manual: every subcommand in `imgwarm --help` has a page, and every
# long option in each command's --help appears in its page. $1: folder, $2: suffix.
check_pages_cover_help() {
  local folder=$1 suffix=$2 problems="" command words page option
  local commands=("")
  for command in $("$current" --help | sed -n '/^SUBCOMMANDS:/,/^$/p' | grep -oE '^  [a-z][a-z0-9-]*' | grep -v '^  help$'); do
    commands+=("$command")
    for sub in $("$current" "$command" --help | sed -n '/^SUBCOMMANDS:/,/^$/p' | grep -oE '^  [a-z][a-z0-9-]*'); do
      commands+=("$command $sub")
    done
  done
  for command in "${commands[@]}"; do
    words=$(echo imgwarm $command | tr ' ' '-')
    page="$folder/$words.1$suffix"
    [ -f "$page" ] || { problems+="no page $words.1$suffix"$'\n'; continue; }
    for option in $("$current" $command --help | grep -oE '^  +(-[a-zA-Z0-9], )?--[a-z0-9][a-z0-9.-]*' | grep -oE -- '--[a-z0-9.-]+$'); do
      zcat -f "$page" | grep -qF -- "Fl -${option#--}" || problems+="$words.1 lacks $option"$'\n'
    done
  done
  [ ${#commands[@]} -ge 6 ] || problems+="found only ${#commands[@]} commands in --help"$'\n'
  [ -z "$problems" ] || { echo "$problems"; return 1; }
}

# man renders every page without a warning, and prefetch's page shows its synopsis (several
# formats: --cache-format may be repeated).
check_man_renders() {
  local folder=$1 page out
  for page in "$folder"/imgwarm*.1*; do
    out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null) || { echo "$page: man failed"; return 1; }
    [ -z "$out" ] || { echo "$page: $out"; return 1; }
  done
  LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$folder"/imgwarm-prefetch.1* 2>/dev/null | grep -q -- "imgwarm prefetch \[--cache-format name\.\.\.\] \[--cache-dir dir\]" \
    || { echo "imgwarm-prefetch.1: its synopsis does not begin with [--cache-format name...] [--cache-dir dir]"; return 1; }
}

# bash loads the completion ($1: a completion file, or "" for bash-completion's own loader) and
# completes the enum options' values and list files.
check_bash_completion() {
  local file=$1
  [ -f /usr/share/bash-completion/bash_completion ] || { echo "bash-completion is not installed"; return 1; }
  mkdir -p "$work/completion-cwd" && touch "$work/completion-cwd/feed.txt" "$work/completion-cwd/hero.jsonl"
  (cd "$work/completion-cwd" && PATH="$PATH" bash --norc --noprofile -c '
    source /usr/share/bash-completion/bash_completion
    if [ -n "$1" ]; then source "$1"; else _completion_loader imgwarm; fi
    function_name=$(complete -p imgwarm | sed -n "s/.*-F \([^ ]*\) .*/\1/p")
    [ -n "$function_name" ] || { echo "no completion function for imgwarm"; exit 1; }
    complete_words() {
      COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
      COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
      "$function_name" imgwarm "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
      printf " %s" "${COMPREPLY[@]}"; printf " \n"
    }
    status=0
    expect() {  # expect "values" words...: every value is offered
      local values=$1; shift
      local got; got=$(complete_words "$@")
      for value in $values; do
        case "$got" in *" $value "*) ;; *) echo "imgwarm ${*:2}<TAB> offers [$got ], not $value"; status=1 ;; esac
      done
    }
    expect "access modification creation change" imgwarm clean --expire-type ""
    expect "header full" imgwarm prefetch --validate ""
    expect "fifo lifo" imgwarm prefetch --order ""
    expect "high normal low" imgwarm prefetch --priority ""
    expect "auto bar log none" imgwarm prefetch --progress ""
    expect "feed.txt hero.jsonl" imgwarm prefetch ""
    expect "feed.txt hero.jsonl" imgwarm prefetch --high ""
    expect "prefetch clean stats path blacklist version" imgwarm ""
    exit $status
  ' bash "$file")
}

# systemd-analyze verify accepts the units in $1 (ExecStart= must exist), without a message.
check_units() {
  local folder=$1 out
  cp "$folder"/* "$work/units/"
  (cd "$work/units" && for template in *@.service *@.timer; do cp "$template" "${template/@./@example.}"; done
   out=$(systemd-analyze verify --man=no ./imgwarm-clean.service ./imgwarm-clean.timer \
     ./imgwarm-prefetch@example.service ./imgwarm-prefetch@example.timer 2>&1) || { echo "$out"; exit 1; }
   [ -z "$out" ] || { echo "$out"; exit 1; })
}

fingerprint() { (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r md5sum); }

echo "== scripts/install.sh --prefix $work/prefix"
prefix="$work/prefix"
started=$(date +%s)
# generate-manual is built afresh, so that the check of install.sh's words sees its build.
rm -rf .build/argument-parser-tools
if out=$(bash scripts/install.sh --prefix "$prefix" 2>&1); then
  pass "install.sh --prefix (with the release build: $(( $(date +%s) - started )) s)"
  # Its words: no compiler warning (argument-parser's generate-manual printed 34 deprecation
  # warnings), and as many files as it wrote: the manifest lists them all, itself included.
  check "install.sh prints no compiler warning" bash -c '! grep -E "warning:" <<< "$1"' _ "$out"
  installed_count=$(sed -n 's/^install\.sh: installed .* (\([0-9]*\) files)$/\1/p' <<< "$out")
  check "install.sh's count ($installed_count files) is the files under the prefix and in its manifest" \
    test "$installed_count $installed_count" = "$(cd "$prefix" && find . -type f | wc -l) $(grep -c . "$prefix/share/imgwarm/install-manifest")"
  check "ldd shows only Debian libraries, no run path" check_libraries "$prefix/bin/imgwarm"
  check "env -i bin/imgwarm --version prints $version" test "$(env -i "$prefix/bin/imgwarm" --version)" = "$version"
  set +e; out=$(hide_swift env -i PATH=/usr/bin:/bin "$prefix/bin/imgwarm" version --verbose 2>&1); status=$?; set -e
  if [ $status -eq 125 ]; then skip "run with /opt/swift hidden (needs root, unshare and /opt/swift)"
  elif [ $status -eq 0 ] && grep -q "^SQLite " <<< "$out" && grep -q "^libcurl " <<< "$out"; then pass "imgwarm version --verbose runs with /opt/swift hidden"
  else fail "imgwarm version --verbose runs with /opt/swift hidden" "$out"; fi
  check "manual pages equal those of the current definitions" check_pages_current "" "$prefix/share/man/man1"
  check "manual pages cover every command and option of --help" check_pages_cover_help "$prefix/share/man/man1" ""
  if command -v man >/dev/null; then check "man renders every page without warnings" check_man_renders "$prefix/share/man/man1"
  else skip "man rendering (man is not installed)"; fi
  check "bash completion equals --generate-completion-script bash" cmp "$prefix/share/bash-completion/completions/imgwarm" "$work/expected/completions/imgwarm.bash"
  check "zsh completion equals --generate-completion-script zsh" cmp "$prefix/share/zsh/site-functions/_imgwarm" "$work/expected/completions/_imgwarm"
  check "fish completion equals --generate-completion-script fish" cmp "$prefix/share/fish/vendor_completions.d/imgwarm.fish" "$work/expected/completions/imgwarm.fish"
  if [ -f /usr/share/bash-completion/bash_completion ]; then
    check "bash completes enum values and list files" check_bash_completion "$prefix/share/bash-completion/completions/imgwarm"
  else skip "bash completion (bash-completion is not installed)"; fi
  if command -v zsh >/dev/null; then check "zsh parses its completion" zsh -n "$prefix/share/zsh/site-functions/_imgwarm"
  else skip "zsh completion syntax (zsh is not installed)"; fi
  if command -v fish >/dev/null; then check "fish parses its completion" fish --no-execute "$prefix/share/fish/vendor_completions.d/imgwarm.fish"
  else skip "fish completion syntax (fish is not installed)"; fi
  check "JSON Schemas installed in share/imgwarm" bash -c "for s in docs/*.schema.json; do cmp \"\$s\" \"$prefix/share/imgwarm/\$(basename \"\$s\")\" || exit 1; done"
  check "systemd examples point at the installed binary" grep -q "^ExecStart=$prefix/bin/imgwarm prefetch" "$prefix/share/doc/imgwarm/examples/systemd/imgwarm-prefetch@.service"
  mkdir -p "$work/units"
  if command -v systemd-analyze >/dev/null; then check "systemd-analyze verify accepts the examples" check_units "$prefix/share/doc/imgwarm/examples/systemd"
  else skip "systemd-analyze verify (systemd is not installed)"; fi

  # Idempotent: a second install leaves the same files; a file of an older install that the new
  # one does not have (a removed subcommand's page) goes.
  before=$(fingerprint "$prefix")
  touch "$prefix/share/man/man1/imgwarm-removed.1"
  echo "share/man/man1/imgwarm-removed.1" >> "$prefix/share/imgwarm/install-manifest"
  mkdir -p "$prefix/share/man/man1" && echo keep > "$prefix/share/man/man1/other-tool.1"
  if out=$(bash scripts/install.sh --prefix "$prefix" 2>&1); then
    rm -f "$prefix/share/man/man1/other-tool.1"
    check "a second install changes nothing and drops what the first had extra" test "$(fingerprint "$prefix")" = "$before"
  else
    fail "a second install succeeds" "$out"
  fi
  echo keep > "$prefix/share/man/man1/other-tool.1"
  if out=$(bash scripts/install.sh --prefix "$prefix" --uninstall 2>&1); then
    check "--uninstall counts as many files removed as install.sh installed" \
      test "$(sed -n 's/^install\.sh: removed imgwarm (\([0-9]*\) files).*/\1/p' <<< "$out")" = "$installed_count"
    check "--uninstall removes every installed file and keeps the others" test "$(cd "$prefix" && find . -type f)" = "./share/man/man1/other-tool.1"
    check "--uninstall removes the folders it created that are empty" test "$(cd "$prefix" && find . -type d | sort | tr '\n' ' ')" = ". ./share ./share/man ./share/man/man1 "
    check "--uninstall again says there is nothing to remove" bash -c "! bash scripts/install.sh --prefix '$prefix' --uninstall 2>/dev/null"
  else
    fail "--uninstall" "$out"
  fi
else
  fail "install.sh --prefix" "$out"
fi

echo "== scripts/package-deb.sh, dpkg -i, dpkg -r"
if ! is_root; then
  skip "Debian package (dpkg -i needs root; run scripts/test-install.sh as root)"
elif ! command -v dpkg-deb >/dev/null || ! command -v dpkg-shlibdeps >/dev/null; then
  skip "Debian package (dpkg-dev is not installed)"
elif ! command -v lintian >/dev/null; then
  skip "Debian package (lintian is not installed)"
elif dpkg-query -W -f='${Status}' imgwarm 2>/dev/null | grep -q "install ok installed"; then
  skip "Debian package (a package named imgwarm is installed on this machine: not replacing it)"
elif ! out=$(bash scripts/package-deb.sh --no-build 2>&1); then
  fail "package-deb.sh builds a lintian-clean package" "$out"
else
  deb=$(tail -n 1 <<< "$out")
  pass "package-deb.sh builds $(basename "$deb"), lintian reports no error or warning"
  check "its name carries the version and architecture" test "$(basename "$deb")" = "imgwarm_${version}_$(dpkg --print-architecture).deb"
  depends=$(dpkg-deb -f "$deb" Depends)
  check "Depends names libcurl, MagickWand, SQLite and libarchive, nothing of Swift" bash -c "grep -q 'libcurl4' <<< '$depends' && grep -q 'libmagickwand-6' <<< '$depends' && grep -q 'libsqlite3-0' <<< '$depends' && grep -q 'libarchive13' <<< '$depends' && ! grep -qi swift <<< '$depends'"
  if out=$(dpkg -i "$deb" 2>&1); then
    package_installed=true
    pass "dpkg -i installs it"
    check "ldd of /usr/bin/imgwarm shows only Debian libraries" check_libraries /usr/bin/imgwarm

    # An ordinary user (nobody) with an empty environment and no Swift toolchain in reach.
    home="$work/nobody"
    mkdir -p "$home"
    chown nobody "$home"
    as_user() { runuser -u nobody -- env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 "$@"; }
    set +e; out=$(hide_swift runuser -u nobody -- env -i PATH=/usr/bin:/bin imgwarm --version 2>&1); status=$?; set -e
    if [ $status -eq 125 ]; then out=$(as_user imgwarm --version 2>&1) && status=0 || status=$?; fi
    check "imgwarm --version as nobody, /opt/swift hidden" test "$status:$out" = "0:$version"

    "$debug_bin/imgwarm-testserver" --root Tests/Fixtures/images/valid --port-file "$work/port" 2>/dev/null &
    server_pid=$!
    for _ in $(seq 1 400); do [ -s "$work/port" ] && break; sleep 0.05; done
    port=$(cat "$work/port" 2>/dev/null || echo 0)
    images=(photo.jpg gradient.png sticker.webp)
    for image in "${images[@]}"; do echo "http://127.0.0.1:$port/$image"; done > "$home/list.txt"
    chown nobody "$home/list.txt"
    set +e
    out=$(hide_swift runuser -u nobody -- env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 \
      imgwarm prefetch --cache-dir "$home/caches" --report "$home/report.json" "$home/list.txt" 2>&1)
    status=$?
    if [ $status -eq 125 ]; then
      out=$(as_user imgwarm prefetch --cache-dir "$home/caches" --report "$home/report.json" "$home/list.txt" 2>&1); status=$?
    fi
    set -e
    problems=""
    [ $status -eq 0 ] || problems+="exit code $status: $out"$'\n'
    for image in "${images[@]}"; do
      file=$(as_user imgwarm path --cache-dir "$home/caches" "http://127.0.0.1:$port/$image")
      cmp -s "$file" "Tests/Fixtures/images/valid/$image" || problems+="$image is not in the cache at $file"$'\n'
      [ "$(stat -c %U "$file" 2>/dev/null)" = nobody ] || problems+="$file is not nobody's"$'\n'
    done
    check "a prefetch as nobody stores the loopback server's images" test -z "$problems"
    [ -z "$problems" ] || echo "$problems" | sed 's/^/        /'
    kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=""

    check "man finds imgwarm-prefetch(1) in /usr/share/man" test "$(man -w imgwarm-prefetch 2>/dev/null)" = /usr/share/man/man1/imgwarm-prefetch.1.gz
    check "installed manual pages equal those of the current definitions" check_pages_current ".gz" /usr/share/man/man1
    check "man renders every installed page without warnings" check_man_renders /usr/share/man/man1
    check "bash-completion's loader finds imgwarm's completion" check_bash_completion ""
    check "zsh completion in vendor-completions" test -s /usr/share/zsh/vendor-completions/_imgwarm
    check "JSON Schemas in /usr/share/imgwarm" test -s /usr/share/imgwarm/prefetch-report.schema.json
    if command -v systemd-analyze >/dev/null; then
      rm -rf "$work/units"; mkdir -p "$work/units"
      check "systemd-analyze verify accepts the installed examples" check_units /usr/share/doc/imgwarm/examples/systemd
    else skip "systemd-analyze verify (systemd is not installed)"; fi

    files=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print substr($6, 2)}')
    if out=$(dpkg -r imgwarm 2>&1); then
      package_installed=false
      pass "dpkg -r removes it"
      left=""
      for file in $files; do [ ! -e "$file" ] || left+="$file "; done
      check "no file of the package is left" test -z "$left"
      check "dpkg no longer lists it as installed" bash -c "! dpkg-query -W -f='\${Status}' imgwarm 2>/dev/null | grep -q 'install ok installed'"
    else
      fail "dpkg -r removes it" "$out"
    fi
  else
    fail "dpkg -i installs it" "$out"
  fi
fi

echo "packaging: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
