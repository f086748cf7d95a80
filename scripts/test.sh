#!/usr/bin/env bash
# One command for a fresh machine: installs what is missing, builds, and runs every test suite
# (GUI and GL suites under Xvfb), then the engine's suites and the Python module's again under
# AddressSanitizer and UndefinedBehaviorSanitizer (skip that part with AUGLAB_SKIP_SANITIZERS=1), then a bounded
# libFuzzer run of the image decoders and the JSON readers (scripts/fuzz.sh; AUGLAB_FUZZ_SECONDS
# per target, default 30; skip it with AUGLAB_SKIP_FUZZ=1).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh -DAUGLAB_TESTS=ON
# -noreset: Xvfb otherwise resets when its last client leaves, and a suite starting at that moment
# cannot connect ("could not connect to display", seen once with two suites in parallel).
(cd build && xvfb-run -a -s "-screen 0 1280x1024x24 -noreset" ctest --output-on-failure -j"$(nproc)" --timeout 1500)
# What did not run, and why: ctest lists whole tests it skipped (a suite whose initTestCase found
# no GPU, display or PyPI); this adds the reason of each, and of any single skipped function.
skipped=$(grep -h "^SKIP   :" build/Testing/Temporary/LastTest.log | sort -u || true)
if [ -n "$skipped" ]; then
  echo "== skipped, with the reasons =="
  echo "$skipped"
fi

# The engine's suites under ASan + UBSan and the fuzz targets share one clang build (build-asan:
# sanitizers, libFuzzer's coverage instrumentation, -O1 with line tables for the stack traces), so
# the engine is compiled once more, not twice; -O1 compiles in a fraction of -O3's time with the
# sanitizers on.
sanitized_build() {
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
        -DAUGLAB_SANITIZE=ON -DAUGLAB_FUZZ=ON -DAUGLAB_TESTS="$1" \
        -DAUGLAB_GUI=OFF -DAUGLAB_GL=OFF -DAUGLAB_CUDA=OFF >/dev/null
}

if [ "${AUGLAB_SKIP_SANITIZERS:-0}" != "1" ]; then
  echo "== engine suites and the Python module under ASan + UBSan =="
  sanitized_build ON
  # The engine's own suites: images, warp, colour ops, sampler, presets and replays, rendering.
  # The label readers and the targets' own suite too (not the one that runs the Python library).
  suites=(test_image_io test_image_save test_image_resize test_warp test_colour_ops test_filter_ops test_cpu_kernels test_cpu_window_kernels test_sampler test_preset
          test_render test_render_geometry test_sheet_sources test_import test_import_ops test_annotations test_coco_masks test_raster
          test_weather test_hostile_inputs)
  # The Python module's suite too (python_module.sanitized: the module and the CLI it is compared
  # with built here, ASan's runtime preloaded into Python; tests/CMakeLists.txt). Without the module
  # (no pybind11 or Python headers) or the runtime, that test is reported as skipped, with the reason.
  python_targets=()
  if cmake --build build-asan --target help 2>/dev/null | grep -w _auglab >/dev/null; then
    python_targets=(_auglab auglab-cli)
  fi
  cmake --build build-asan -j"$(nproc)" --target "${suites[@]}" test_targets "${python_targets[@]}"
  # Any UBSan report fails the run.
  regex="^($(IFS='|'; echo "${suites[*]}")|test_preset\.(TestPreset|TestReplayFuzz|TestReplayFuzzMosaic)|test_targets\.TestTargets|test_hostile_inputs\.TestHostileFiles|python_module\.sanitized)\$"
  (cd build-asan && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
     ctest --output-on-failure -j"$(nproc)" --timeout 900 -R "$regex")
  skipped=$(grep -h "^SKIP   :" build-asan/Testing/Temporary/LastTest.log | sort -u || true)
  if [ -n "$skipped" ]; then
    echo "== skipped under the sanitizers, with the reasons =="
    echo "$skipped"
  fi
fi

if [ "${AUGLAB_SKIP_FUZZ:-0}" != "1" ]; then
  echo "== fuzzing the readers of untrusted input (bounded) =="
  [ -f build-asan/CMakeCache.txt ] || sanitized_build OFF
  scripts/fuzz.sh build-asan
fi
