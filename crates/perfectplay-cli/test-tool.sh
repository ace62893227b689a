# Sourced by the test scripts that run the perfectplay tool from another language (the Python
# package's, the browser's): exports its path as PERFECTPLAY_CLI. A PERFECTPLAY_CLI already set
# is kept (.ci/run sets it to the binary its `cargo test --workspace` built, which a build of
# the tool alone would build again, its dependencies' features unified differently); else the
# tool is built in the test profile. The path comes from cargo itself, so that a
# CARGO_TARGET_DIR set elsewhere is followed; the tests fail, never skip, without it. Needs
# $root (the clone) and $python (a Python 3 interpreter).
if [ -z "${PERFECTPLAY_CLI:-}" ]; then
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
fi
if [ ! -x "$PERFECTPLAY_CLI" ]; then
    echo "error: no perfectplay command-line tool at '$PERFECTPLAY_CLI' (PERFECTPLAY_CLI)" >&2
    exit 2
fi
export PERFECTPLAY_CLI
