#!/usr/bin/env bash
# Fuzzes the readers of untrusted input with libFuzzer: the image decoders (tests/fuzz/fuzz_image),
# the preset, replay and Albumentations readers (tests/fuzz/fuzz_json) and the dataset label
# readers: COCO, YOLO (pose too), data.yaml, classes.txt, Pascal VOC, mask PNGs (tests/fuzz/fuzz_labels). Builds them with clang,
# AddressSanitizer and UndefinedBehaviorSanitizer into "$build"/ (or into the build folder given
# as the argument, configured with AUGLAB_FUZZ=ON: scripts/test.sh passes its sanitizer build),
# then runs each for a bounded time (AUGLAB_FUZZ_SECONDS, default 30) from the corpus in
# tests/fuzz/corpus. A crash, a leak, a sanitizer report or a slow input stops the run with exit
# code 1 and leaves the input that caused it as <build>/crash-* (add it to the corpus once fixed).
# scripts/deps.sh installs clang.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${AUGLAB_FUZZ_SECONDS:-30}
build=${1:-build-fuzz}
if [ $# -eq 0 ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
        -DAUGLAB_FUZZ=ON -DAUGLAB_SANITIZE=ON -DAUGLAB_TESTS=OFF -DAUGLAB_GUI=OFF -DAUGLAB_GL=OFF -DAUGLAB_CUDA=OFF \
        >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target fuzz_image fuzz_json fuzz_labels
status=0
for target in image json labels; do
  corpus=$(mktemp -d)
  cp tests/fuzz/corpus/"$target"/* "$corpus"/
  echo "== fuzz_$target: ${seconds} s from $(ls tests/fuzz/corpus/"$target" | wc -l) corpus files =="
  log="$build"/fuzz_"$target".log
  if ! UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
       "$build"/tests/fuzz/fuzz_"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
         -max_len=262144 -print_final_stats=1 -artifact_prefix="$build"/crash-"$target"- "$corpus" >"$log" 2>&1; then
    status=1
    echo "fuzz_$target FAILED; the input is $build/crash-$target-*; its report:"
    grep -A40 -E "==[0-9]+==ERROR|runtime error|ALARM|out-of-memory|deadly signal" "$log" | head -80
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb|INFO: seed corpus: files" "$log" || true
  rm -rf "$corpus"
done
exit $status
