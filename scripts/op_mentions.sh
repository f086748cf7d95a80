#!/usr/bin/env bash
# How many files outside tests/ name each op (its snake_case id or its CamelCase class name):
# the measure of docs/adding-an-op.md. Prints "op count: files".
set -euo pipefail
cd "$(dirname "$0")/.."
ops=$(sed -n '/^enum class OpId {/,/^};/p' core/ops/op_list.h | grep -o '[A-Z][A-Za-z0-9]*,' | tr -d ,)
for cls in $ops; do
  id=$(echo "$cls" | sed -E 's/([a-z0-9])([A-Z])/\1_\2/g' | tr '[:upper:]' '[:lower:]')
  files=$(git ls-files core app ui shaders scripts CMakeLists.txt | grep -v '^tests/' | \
          xargs grep -lwE "$id|$cls" 2>/dev/null | sort | tr '\n' ' ')
  echo "$id $(echo $files | wc -w): $files"
done
