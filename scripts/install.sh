#!/usr/bin/env bash
# Builds imgwarm (release, Swift runtime linked in statically) and installs it with its manual
# pages, shell completions, JSON Schemas and systemd examples. The installed binary needs no Swift
# toolchain: it links only Debian's libraries (libcurl, MagickWand, SQLite, libarchive, libc,
# libstdc++).
#
#   scripts/install.sh                      # into /usr/local (needs root for that)
#   scripts/install.sh --prefix ~/.local    # anywhere else
#   scripts/install.sh --uninstall [--prefix DIR]
#
# Installs (PREFIX is /usr/local unless --prefix):
#   PREFIX/bin/imgwarm
#   PREFIX/share/man/man1/imgwarm.1, imgwarm-<command>.1 ...   generated from the built binary
#   PREFIX/share/bash-completion/completions/imgwarm           generated from the built binary
#   PREFIX/share/zsh/site-functions/_imgwarm                   (share/zsh/vendor-completions under /usr)
#   PREFIX/share/fish/vendor_completions.d/imgwarm.fish
#   PREFIX/share/imgwarm/*.schema.json                         the report schemas
#   PREFIX/share/doc/imgwarm/examples/systemd/                 units from contrib/systemd
#   PREFIX/share/imgwarm/install-manifest                      what --uninstall removes
#   PREFIX/share/imgwarm/install-folders                       the folders the install created
#
# Running it again replaces every file (and removes the files of the previous install that the
# new one no longer has); --uninstall removes exactly what the manifest lists, then the folders
# the install created that are left empty (a folder that held something else stays).
# Options for packaging (scripts/package-deb.sh): --destdir DIR stages under DIR instead of /,
# --no-manifest writes no manifest, --no-build installs the binary of the last build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

prefix=/usr/local
destdir=""
uninstall=false
manifest=true
build=true
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=${2:?--prefix needs a folder}; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --destdir) destdir=${2:?--destdir needs a folder}; shift 2 ;;
    --destdir=*) destdir=${1#--destdir=}; shift ;;
    --uninstall) uninstall=true; shift ;;
    --no-manifest) manifest=false; shift ;;
    --no-build) build=false; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$prefix" in
  /*) ;;
  *) prefix="$(pwd)/$prefix" ;;
esac
prefix=${prefix%/}
[ -n "$prefix" ] || { echo "install.sh: --prefix / is not supported: use /usr or /usr/local" >&2; exit 2; }
target="$destdir$prefix"
manifest_file="$target/share/imgwarm/install-manifest"
folders_file="$target/share/imgwarm/install-folders"

# Removes the files a manifest lists (paths relative to the prefix), then the folders of imgwarm's
# own that are left empty; shared folders (share/man/man1, bin) stay.
# Counts in $removed the files that were there.
removed=0
remove_listed() {
  local list=$1 keep=${2:-}
  while IFS= read -r relative; do
    [ -n "$relative" ] || continue
    case "$relative" in /*|*..*) echo "install.sh: skipping odd manifest line '$relative'" >&2; continue ;; esac
    if [ -n "$keep" ] && grep -qxF -- "$relative" "$keep"; then continue; fi
    if [ -e "$target/$relative" ] || [ -L "$target/$relative" ]; then
      rm -f -- "$target/$relative"
      removed=$((removed + 1))
    fi
  done < "$list"
}
remove_own_folders() {
  for folder in share/doc/imgwarm/examples/systemd share/doc/imgwarm/examples share/doc/imgwarm share/imgwarm; do
    [ -d "$target/$folder" ] && rmdir --ignore-fail-on-non-empty "$target/$folder"
  done
  return 0
}

if $uninstall; then
  if [ ! -f "$manifest_file" ]; then
    echo "install.sh: nothing to uninstall: $manifest_file does not exist" >&2
    exit 1
  fi
  created=""
  [ -f "$folders_file" ] && created=$(cat "$folders_file")
  remove_listed "$manifest_file"
  rm -f "$manifest_file" "$folders_file"
  remove_own_folders
  # Deepest first, so a parent is empty by the time it comes.
  while IFS= read -r relative; do
    case "$relative" in ""|/*|*..*) continue ;; esac
    [ -d "$target/$relative" ] && rmdir --ignore-fail-on-non-empty "$target/$relative"
  done < <(printf '%s\n' "$created" | awk '{ print gsub("/", "/"), $0 }' | sort -rn | cut -d' ' -f2-)
  echo "install.sh: removed imgwarm ($removed files) from $target"
  exit 0
fi

source scripts/env.sh
if $build; then
  bash scripts/install-deps.sh >/dev/null
  echo "install.sh: building imgwarm (release, --static-swift-stdlib)"
  # -z now: every symbol bound at start, so the whole GOT can be read-only (full RELRO).
  # No $ORIGIN run path: nothing is loaded from beside the binary (/usr/bin, /usr/local/bin).
  # The progress lines go; compiler diagnostics stay (imgwarm's own: SwiftPM silences those of
  # the dependencies it fetched), and so does the last line. One linker line goes too: glibc's
  # link-time note that the toolchain's own static Foundation (swift_static/…
  # libFoundationEssentials.a) calls mktemp, which says nothing of imgwarm's code.
  swift build -c release --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now \
    --product imgwarm 2>&1 | {
    grep -vE '^(\[[0-9]+/[0-9]+\] |Building for )|/swift_static/.*: warning: the use of .mktemp. is dangerous' || true
  }
fi
binary="$(swift build -c release --show-bin-path)/imgwarm"
[ -x "$binary" ] || { echo "install.sh: $binary is missing: run without --no-build" >&2; exit 1; }

# Everything is generated into a staging folder first, so a failure installs nothing.
stage=$(mktemp -d "${TMPDIR:-/tmp}/imgwarm-install.XXXXXX")
trap 'rm -rf "$stage"' EXIT
bash scripts/generate-docs.sh --binary "$binary" --output "$stage/generated" >/dev/null

if [ "$prefix" = /usr ]; then zsh_dir=share/zsh/vendor-completions; else zsh_dir=share/zsh/site-functions; fi
files=()   # "mode source relative-destination"
files+=("0755 $binary bin/imgwarm")
for page in "$stage"/generated/man/*.1; do files+=("0644 $page share/man/man1/$(basename "$page")"); done
files+=("0644 $stage/generated/completions/imgwarm.bash share/bash-completion/completions/imgwarm")
files+=("0644 $stage/generated/completions/_imgwarm $zsh_dir/_imgwarm")
files+=("0644 $stage/generated/completions/imgwarm.fish share/fish/vendor_completions.d/imgwarm.fish")
for schema in docs/*.schema.json; do files+=("0644 $root/$schema share/imgwarm/$(basename "$schema")"); done
for unit in contrib/systemd/*; do files+=("0644 $root/$unit share/doc/imgwarm/examples/systemd/$(basename "$unit")"); done

: > "$stage/manifest"
: > "$stage/folders"
[ -f "$folders_file" ] && cat "$folders_file" > "$stage/folders"
for entry in "${files[@]}"; do
  read -r mode source relative <<< "$entry"
  destination="$target/$relative"
  # Each folder this install creates is noted, for --uninstall to remove once it is empty.
  folder=$(dirname "$relative")
  while [ "$folder" != . ] && [ ! -d "$target/$folder" ]; do
    echo "$folder" >> "$stage/folders"
    folder=$(dirname "$folder")
  done
  mkdir -p "$(dirname "$destination")"
  case "$relative" in
    bin/*)
      install -m "$mode" "$source" "$destination.tmp"
      strip --strip-unneeded --remove-section=.comment --remove-section=.note "$destination.tmp"
      mv -f "$destination.tmp" "$destination" ;;
    share/doc/imgwarm/examples/systemd/*)
      # The units name /usr/bin/imgwarm; point them at this prefix's binary.
      sed "s|/usr/bin/imgwarm|$prefix/bin/imgwarm|g" "$source" > "$destination.tmp"
      chmod "$mode" "$destination.tmp"; mv -f "$destination.tmp" "$destination" ;;
    *) install -m "$mode" "$source" "$destination" ;;
  esac
  echo "$relative" >> "$stage/manifest"
done

if $manifest; then
  # Files of an earlier install that this one no longer has (a subcommand removed) go.
  [ -f "$manifest_file" ] && remove_listed "$manifest_file" "$stage/manifest"
  install -m 0644 "$stage/manifest" "$manifest_file"
  echo "share/imgwarm/install-manifest" >> "$manifest_file"
  sort -u "$stage/folders" > "$stage/folders.sorted"
  install -m 0644 "$stage/folders.sorted" "$folders_file"
  echo "share/imgwarm/install-folders" >> "$manifest_file"
fi
# Every file written counts, the manifest and the folder list included: --uninstall removes as many.
count=${#files[@]}
$manifest && count=$(grep -c . "$manifest_file")
echo "install.sh: installed imgwarm $("$target/bin/imgwarm" --version) into $target ($count files)"
