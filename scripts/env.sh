# Sourced by the scripts: the Swift toolchain on PATH, and the repository as the working directory.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    PATH="/opt/swift/usr/bin:$PATH"
    export PATH
fi
cd "$(dirname "$0")/.."
