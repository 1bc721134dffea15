#!/usr/bin/env bash
# Installs the project into ./.venv. Idempotent: a second run only checks.
#   scripts/setup.sh            the runtime (no torch): enough for the demo and the web app
#   scripts/setup.sh --dev      + the train extra (torch, ultralytics), test tools, Debian's Chromium and PostgreSQL
set -euo pipefail
cd "$(dirname "$0")/.."
dev=0
[ "${1:-}" = "--dev" ] && dev=1

# A rerun only checks: when pyproject.toml (and this script) are what the last install used and the
# package imports, nothing is installed again.
# (A --dev install holds the runtime too.)
stamp=".venv/.setup-$([ "$dev" = 1 ] && echo dev || echo runtime)"
wanted="$(cat pyproject.toml scripts/setup.sh package.json package-lock.json | sha256sum | cut -d' ' -f1)"
installed() { [ -f "$1" ] && [ "$(cat "$1")" = "$wanted" ]; }
# The translation catalogues (companion/locale/*/LC_MESSAGES/messages.po) compiled to .mo, on every run
# (a .po may change without pyproject.toml); a broken one stops the install, naming its file and line.
compile_catalogues() {
    if ! .venv/bin/python scripts/i18n.py compile >/dev/null; then
        echo "setup: stopped: a translation catalogue does not compile (see above); fix the .po file and run setup again" >&2
        exit 1
    fi
}
# The phone's own reader (issue 23): onnxruntime-web from npm, the exact version package-lock.json pins,
# its browser builds and WASM files copied into web_ui/static/vendor/ (gitignored). A page never fetches
# them from elsewhere; without them the phone sends frames instead and says why. npm comes from Debian
# (--dev) or the system; a runtime install without npm leaves the folder out and says so.
VENDOR=web_ui/static/vendor
ORT_FILES="ort.wasm.min.js ort.webgpu.min.js ort-wasm-simd-threaded.mjs ort-wasm-simd-threaded.wasm ort-wasm-simd-threaded.jsep.mjs ort-wasm-simd-threaded.jsep.wasm"
vendor_present() {
    local file
    for file in $ORT_FILES; do [ -s "$VENDOR/$file" ] || return 1; done
    [ "$(cat "$VENDOR/VERSION" 2>/dev/null)" = "$(ort_version)" ]
}
ort_version() { sed -n 's/.*"onnxruntime-web": *"\([0-9][0-9.]*\)".*/\1/p' package.json | head -1; }
vendor_ort() {
    if vendor_present; then return 0; fi
    if ! command -v npm >/dev/null 2>&1; then
        echo "setup: no npm: the phone camera page cannot read cards itself and will send frames (install npm and run setup again)" >&2
        return 0
    fi
    # --ignore-scripts: nothing of onnxruntime-web's dependencies needs to run (protobufjs' postinstall only checks its own version)
    if ! npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null; then
        echo "setup: stopped: npm could not install onnxruntime-web $(ort_version) (see above)" >&2
        exit 1
    fi
    rm -rf "$VENDOR" && mkdir -p "$VENDOR"
    local file
    for file in $ORT_FILES; do cp "node_modules/onnxruntime-web/dist/$file" "$VENDOR/$file"; done
    ort_version > "$VENDOR/VERSION"
    echo "setup: onnxruntime-web $(ort_version) vendored into $VENDOR/"
}
# --dev: the Debian packages the tests need: Chromium (browser tests), poppler's pdftoppm (the mats'
# PDF rendered to PNG), a Chinese font (so both draw Chinese text instead of empty boxes) and the
# PostgreSQL server (the shared store's tests start a throw-away cluster of their own: initdb + pg_ctl).
postgres_present() { ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; }
dev_debs_present() {
    command -v chromium >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 && command -v pdftoppm >/dev/null 2>&1 \
        && fc-list :lang=zh 2>/dev/null | grep -q . && postgres_present
}
if { installed "$stamp" || { [ "$dev" = 0 ] && installed .venv/.setup-dev; }; } \
   && .venv/bin/python -c 'import companion, web_ui' 2>/dev/null \
   && { [ "$dev" = 0 ] || dev_debs_present; }; then
    compile_catalogues
    vendor_ort
    echo "setup: .venv up to date, nothing installed ($(.venv/bin/python -c 'import companion; print("companion", companion.__version__)'))"
    exit 0
fi

python3 -m venv .venv 2>/dev/null || true
.venv/bin/python -m pip install -q --upgrade "pip>=24" >/dev/null
if [ "$dev" = 1 ]; then
    .venv/bin/python -m pip install -q -e ".[train,test]"
    # ultralytics pulls the GUI build of OpenCV beside the headless one; both own the cv2 folder, so keep
    # exactly one (headless) to avoid the two builds overwriting each other.
    if .venv/bin/python -m pip show -q opencv-python >/dev/null 2>&1; then
        .venv/bin/python -m pip uninstall -q -y opencv-python
        .venv/bin/python -m pip install -q --force-reinstall --no-deps "opencv-python-headless==5.0.0.93"
    fi
    # Browser tests drive Debian's Chromium; Playwright never downloads a browser of its own.
    if ! dev_debs_present; then
        # Only what is missing: a machine whose npm came with its own nodejs (nodesource) cannot take
        # Debian's npm package beside it (apt refuses the whole set: "held broken packages").
        debs=""
        command -v chromium >/dev/null 2>&1 || debs="$debs chromium"
        command -v npm >/dev/null 2>&1 || debs="$debs npm"
        command -v pdftoppm >/dev/null 2>&1 || debs="$debs poppler-utils poppler-data"
        fc-list :lang=zh 2>/dev/null | grep -q . || debs="$debs fonts-wqy-microhei"
        postgres_present || debs="$debs postgresql"
        if [ "$(id -u)" = 0 ]; then
            apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $debs >/dev/null
        else
            sudo apt-get update -q >/dev/null && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -q $debs >/dev/null
        fi
    fi
else
    .venv/bin/python -m pip install -q -e .
fi
compile_catalogues
vendor_ort
echo "$wanted" > "$stamp"
echo "setup: .venv ready ($(.venv/bin/python -c 'import companion; print("companion", companion.__version__)'))"
