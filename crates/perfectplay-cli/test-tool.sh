# Sourced by the test scripts that run the perfectplay tool from another language (the Python
# package's, the browser's): builds it in the test profile (after `cargo test --workspace`, as
# in .ci/run, it is already built) and exports its path as PERFECTPLAY_CLI. The path comes from
# cargo itself, so that a CARGO_TARGET_DIR set elsewhere is followed; the tests fail, never
# skip, without it. Needs $root (the clone) and $python (a Python 3 interpreter).
PERFECTPLAY_CLI="$(cd "$root" && cargo build --locked --profile test -p perfectplay-cli \
    --message-format=json-render-diagnostics \
    | "$python" -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") \
            and m["target"]["name"] == "perfectplay":
        print(m["executable"])
')"
if [ ! -x "$PERFECTPLAY_CLI" ]; then
    echo "error: cargo did not say where it built the perfectplay command-line tool" >&2
    exit 2
fi
export PERFECTPLAY_CLI
