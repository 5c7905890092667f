#!/usr/bin/env bash
# Generates imgwarm's manual pages and shell completions from a built imgwarm binary, so they
# always describe the options that binary has (nothing option-specific is written by hand).
#
#   scripts/generate-docs.sh --binary .build/release/imgwarm --output DIR [--date YYYY-MM-DD]
#
# Writes DIR/man/imgwarm.1 and imgwarm-<command>[-<subcommand>].1 (one page per command, from
# swift-argument-parser's generate-manual tool, which reads `imgwarm --experimental-dump-help`),
# and DIR/completions/imgwarm.bash, _imgwarm (zsh), imgwarm.fish (`--generate-completion-script`).
# The pages are dated --date, else $SOURCE_DATE_EPOCH, else the last commit's date, so the same
# sources give the same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

binary=""
output=""
date=""
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=${2:?}; shift 2 ;;
    --output) output=${2:?}; shift 2 ;;
    --date) date=${2:?}; shift 2 ;;
    *) echo "generate-docs.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$binary" ] && [ -x "$binary" ] || { echo "generate-docs.sh: --binary must name a built imgwarm" >&2; exit 2; }
[ -n "$output" ] || { echo "generate-docs.sh: --output DIR is required" >&2; exit 2; }
case "$binary" in /*) ;; *) binary="$(pwd)/$binary" ;; esac
if [ -z "$date" ]; then
  if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
    date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
  else
    date=$(git log -1 --format=%cd --date=format-local:%Y-%m-%d 2>/dev/null || date -u +%Y-%m-%d)
  fi
fi

# generate-manual is a tool of swift-argument-parser (the package's GenerateManual plugin runs
# it); build it from the checkout the package resolved, in its own scratch folder.
checkout=.build/checkouts/swift-argument-parser
if [ ! -f "$checkout/Tools/generate-manual/GenerateManual.swift" ]; then
  swift package resolve >/dev/null
fi
[ -f "$checkout/Tools/generate-manual/GenerateManual.swift" ] || {
  echo "generate-docs.sh: $checkout has no Tools/generate-manual" >&2; exit 1; }
tools=.build/argument-parser-tools
# The tool is argument-parser's code alone, built as a root package, so SwiftPM shows its
# warnings (34 deprecation warnings as of 1.8): they are not imgwarm's, and -suppress-warnings
# drops them. The build's own lines are shown only if it fails.
if ! out=$(swift build --package-path "$checkout" --scratch-path "$tools" --product generate-manual \
  -Xswiftc -suppress-warnings 2>&1); then
  printf '%s\n' "$out" >&2
  echo "generate-docs.sh: building swift-argument-parser's generate-manual failed" >&2
  exit 1
fi
generate_manual="$(swift build --package-path "$checkout" --scratch-path "$tools" -Xswiftc -suppress-warnings \
  --show-bin-path)/generate-manual"

rm -rf "$output/man" "$output/completions"
mkdir -p "$output/man" "$output/completions"
raw=$(mktemp -d "${TMPDIR:-/tmp}/imgwarm-man.XXXXXX")
trap 'rm -rf "$raw"' EXIT
"$generate_manual" "$binary" --multi-page --date "$date" --section 1 --output-directory "$raw"

# generate-manual names a subcommand's page imgwarm.prefetch.1; man(1) users and systemd's
# Documentation= expect imgwarm-prefetch(1), as git and systemctl name theirs: rename the files,
# their titles (.Dt) and the cross-references (.Xr). Its paragraph breaks are empty lines, which
# mdoc warns about (and lintian reports): they become .Pp. The NAME section gets the page's
# name (imgwarm-prefetch, what whatis/apropos index), the SYNOPSIS the command as typed.
for page in "$raw"/*.1; do
  name=$(basename "$page" .1)
  dashed=${name//./-}
  spaced=${name//./ }
  sed -e "s/^\.Dt .* \([0-9]\)\$/.Dt ${dashed^^} \1/" \
      -e '/^\.Xr imgwarm[.a-z0-9-]* /{ s/^\.Xr //; s/\./-/g; s/^/.Xr /; }' \
      -e "s/^\.Nm \"$spaced\"\$/.Nm $dashed/" \
      -e "s/^\.Nm\$/.Nm \"$spaced\"/" \
      -e 's/^$/.Pp/' "$page" > "$output/man/$dashed.1"
done

# bash-completion sources its files: a #! line there means nothing (lintian warns about it).
"$binary" --generate-completion-script bash | sed '1{/^#!/d}' > "$output/completions/imgwarm.bash"
"$binary" --generate-completion-script zsh > "$output/completions/_imgwarm"
"$binary" --generate-completion-script fish > "$output/completions/imgwarm.fish"
ls "$output/man" "$output/completions"
