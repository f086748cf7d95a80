#!/usr/bin/env bash
# run_suite.sh PYTHON VENV PACKAGES CHECK [pytest arguments...]
#
# Runs pytest on the `auglab` module's suites (ctest's python_module tests) with the first interpreter
# in which the Python code CHECK succeeds: PYTHON (the one the module was built for) itself, else the
# virtual environment VENV in the build tree, made from PYTHON or completed with pip installing
# PACKAGES, as the other suites that need PyPI make theirs. When no such interpreter can be had (no
# venv module, no PyPI) it says why in Qt Test's words (scripts/test.sh lists those lines) and exits
# 77, which ctest reports as skipped. PYTHONPATH (the built module) and AUGLAB_CLI come from ctest.
#
# AUGLAB_PRELOAD (python_module.sanitized): a sanitizer runtime that pytest's interpreter, and only it,
# gets as LD_PRELOAD (the checks and pip run without it); a value that is not a file skips, saying why.
set -uo pipefail
python=$1 venv=$2 packages=$3 check=$4
shift 4
export PYTHONDONTWRITEBYTECODE=1

skip() {
    echo "SKIP   : python_module::environment() $*"
    exit 77
}
ready() { "$1" -c "$check" >/dev/null 2>&1; }

run=$python
if ! ready "$run"; then
    run=$venv/bin/python
    if ! ready "$run"; then
        if [ ! -x "$run" ]; then
            why=$("$python" -m venv "$venv" 2>&1) || skip "$python -m venv failed: ${why:$(( ${#why} > 300 ? ${#why} - 300 : 0 ))}"
        fi
        # shellcheck disable=SC2086  # PACKAGES is a list
        why=$("$run" -m pip install --quiet --disable-pip-version-check $packages 2>&1) ||
            skip "pip could not install $packages: ${why:$(( ${#why} > 400 ? ${#why} - 400 : 0 ))}"
        if ! ready "$run"; then
            echo "FAIL: $venv is ready but this fails in it:"
            "$run" -c "$check"
            exit 1
        fi
    fi
fi
echo "python: $("$run" -c 'import sys; print(sys.executable, sys.version.split()[0])')"
preload=${AUGLAB_PRELOAD:-}
if [ -n "$preload" ]; then
    [ -f "$preload" ] || skip "no sanitizer runtime to preload: ${preload#missing:}"
    echo "preloaded: $preload"
    LD_PRELOAD=$preload exec "$run" -m pytest -q -rs -p no:cacheprovider "$@"
fi
exec "$run" -m pytest -q -rs -p no:cacheprovider "$@"
