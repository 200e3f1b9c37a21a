#!/usr/bin/env bash
# Builds a package of an app developer's own that depends on the EvtoolClient product alone
# (a path dependency on this checkout), with Examples/PhoneApp's source as its program, and
# runs its walk with no server (offline: the actions wait on the device). Prints the folder of
# the built program on its last line, so a caller can run it against a server.
#
#   scripts/check-client-package.sh [FOLDER]    # default: a new temporary folder
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
folder=${1:-$(mktemp -d /tmp/evtool-client-package.XXXXXX)}
mkdir -p "$folder/Sources/MyPhoneApp"
cat > "$folder/Package.swift" <<MANIFEST
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "MyPhoneApp",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(path: "$root")],
    targets: [
        .executableTarget(name: "MyPhoneApp", dependencies: [.product(name: "EvtoolClient", package: "$(basename "$root")")]),
    ]
)
MANIFEST
cp "$root/Examples/PhoneApp/PhoneApp.swift" "$folder/Sources/MyPhoneApp/"
(cd "$folder" && swift build >&2)
binary="$folder/.build/debug/MyPhoneApp"
# Offline: nothing listens on port 9 of this machine.
(cd "$folder" && EVTOOL_SERVER=http://127.0.0.1:9 EVTOOL_CLIENT_FILE="$folder/offline.sqlite" "$binary" walk >&2)
echo "$binary"
