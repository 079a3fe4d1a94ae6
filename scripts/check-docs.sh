#!/usr/bin/env bash
# Checks that the docs still match the repository:
#
# - every repository path named in README.md, docs/**/*.md, a Cargo.toml or a script's comments
#   (a word like `core/src/pages.rs` or `docs/cliff.svg`, and every relative Markdown link)
#   exists, read from the repository root, the file's own folder, its crate's folder or the
#   crate's src/ (build outputs under target/ and .work/ are left out);
# - README.md stays under 150 lines;
# - the README's test command is the one .ci/run runs (the line after "The README's test
#   command" there).
#
#   scripts/check-docs.sh          # exits 1 and lists each problem when one is found
#
# CHECK_DOCS_RS=1 also checks the paths named in the comments of every .rs file.
set -euo pipefail
cd "$(dirname "$0")/.."

problems=0
problem() {
  echo "check-docs: $*" >&2
  problems=$((problems + 1))
}

# The folder of the nearest Cargo.toml at or above the folder $1 (the root at most).
crate_dir() {
  local d="$1"
  while [ "$d" != "." ] && [ ! -f "$d/Cargo.toml" ]; do d="$(dirname "$d")"; done
  echo "$d"
}

# Whether path $2, named in file $1, exists from any of the places a reader would look.
resolves() {
  local file="$1" path="$2" dir crate
  dir="$(dirname "$file")"
  crate="$(crate_dir "$dir")"
  for base in . "$dir" "$crate" "$crate/src"; do
    [ -e "$base/$path" ] && return 0
  done
  return 1
}

# The text of $1 that names paths: comments only for code, all of it for Markdown and TOML;
# URLs removed.
text_of() {
  case "$1" in
    *.md) cat "$1" ;;
    *.toml | *.sh) grep -E '^[[:space:]]*#' "$1" || true ;;
    *.rs) grep -E '^[[:space:]]*//' "$1" || true ;;
  esac | sed -E 's#[a-z]+://[^ )>`"]*##g'
}

files=(README.md)
while IFS= read -r f; do files+=("$f"); done < <(
  {
    find docs -name '*.md'
    git ls-files '*Cargo.toml' 'scripts/*.sh'
    if [ "${CHECK_DOCS_RS:-}" = 1 ]; then git ls-files '*.rs'; fi
  } | sort -u
)

ext='rs|md|sh|mjs|js|html|toml|json|svg|png|lock|yml|yaml'
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  text="$(text_of "$f")"
  # Words that look like repository paths: a folder, a name and a known extension.
  while IFS= read -r p; do
    [ -n "$p" ] || continue
    case "$p" in target/* | */target/* | *.work/* | *node_modules/*) continue ;; esac
    resolves "$f" "$p" || problem "$f names $p, which does not exist"
  done < <(grep -oE "(\.\./)*[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)+\.($ext)\b" <<<"$text" | sort -u)
  # Relative Markdown links, files or folders.
  if [[ "$f" == *.md ]]; then
    while IFS= read -r p; do
      p="${p%%#*}"
      [ -n "$p" ] || continue
      case "$p" in *:*) continue ;; esac
      [ -e "$(dirname "$f")/$p" ] || problem "$f links to $p, which does not exist"
    done < <(grep -oE '\]\([^) ]+\)' <<<"$text" | sed -E 's/^\]\((.*)\)$/\1/' | sort -u)
  fi
done

lines=$(wc -l <README.md)
[ "$lines" -lt 150 ] || problem "README.md has $lines lines (under 150, please: the rest goes to docs/)"

ci_test="$(grep -A1 "The README's test command" .ci/run | tail -n 1 | sed -E 's/^[[:space:]]+//')"
if [ -z "$ci_test" ]; then
  problem ".ci/run has no line after \"The README's test command\""
elif ! grep -qF -- "$ci_test" README.md; then
  problem ".ci/run runs \`$ci_test\` as the README's test command, but README.md does not say it"
fi

if [ "$problems" -gt 0 ]; then
  echo "check-docs: $problems problem(s)" >&2
  exit 1
fi
echo "check-docs: ${#files[@]} files, paths and links resolve; README $lines lines; test command in step with .ci/run"
