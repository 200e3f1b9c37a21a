#!/bin/sh
# Run by the BuildCommit build-tool plugin before every build of evtool:
#   build-commit.sh PACKAGE_DIR OUTPUT_DIR
# writes OUTPUT_DIR/BuildCommit.swift with the commit PACKAGE_DIR is checked out at
# (`git rev-parse HEAD`), or "unknown" when it is not a git checkout or git is missing.
# The file is replaced only when its text changes, so an unchanged tree rebuilds nothing.
set -u
package=$1
out=$2
mkdir -p "$out"
commit=$(git -C "$package" rev-parse --verify --quiet HEAD 2>/dev/null) || commit=unknown
case $commit in
    *[!0-9a-f]* | "") commit=unknown ;;
esac
text="// Written by scripts/build-commit.sh (the BuildCommit plugin); not in git.
/// The git commit evtool was built from, or \"unknown\".
enum BuildCommit {
    static let hash = \"$commit\"
}"
if [ ! -f "$out/BuildCommit.swift" ] || [ "$(cat "$out/BuildCommit.swift")" != "$text" ]; then
    printf '%s\n' "$text" > "$out/BuildCommit.swift.tmp" && mv "$out/BuildCommit.swift.tmp" "$out/BuildCommit.swift"
fi
