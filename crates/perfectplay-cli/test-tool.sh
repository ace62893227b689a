# Sourced by the test scripts that run the perfectplay tool from another language (the Python
# package's, the browser's): builds it and exports its path as PERFECTPLAY_CLI. The build is
# `cargo $PERFECTPLAY_CLI_BUILD`, by default `build --locked --profile test -p perfectplay-cli`;
# .ci/run sets it to `test --workspace --locked --no-run`, whose binary its workspace test
# build already made (the tool built alone would be compiled anew, its dependencies' features
# unified differently). The path comes from cargo itself, so that a CARGO_TARGET_DIR set
# elsewhere is followed; the tests fail, never skip, without it. Needs $root (the clone) and
# $python (a Python 3 interpreter).
# shellcheck disable=SC2086 # the build's arguments are split on purpose
PERFECTPLAY_CLI="$(cd "$root" \
    && cargo ${PERFECTPLAY_CLI_BUILD:-build --locked --profile test -p perfectplay-cli} \
        --message-format=json-render-diagnostics \
    | "$python" -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") \
            and m["target"]["name"] == "perfectplay" and not m["profile"]["test"]:
        print(m["executable"])
')"
if [ ! -x "$PERFECTPLAY_CLI" ]; then
    echo "error: cargo did not say where it built the perfectplay command-line tool" >&2
    exit 2
fi
export PERFECTPLAY_CLI
