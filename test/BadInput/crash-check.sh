#!/usr/bin/env bash
# Helper of crash-check.mlir: runs every input of $1 through every pass list.
dir="$1"
opt="$2"
passes=(--serenity-schedule --serenity-schedule=algorithm=hill-valley --serenity-rewrite
  --serenity-tile --serenity-annotate-lifetimes --serenity-memory-report
  --serenity-prepare-input --serenity-concat-copies --serenity-fuse-requantization
  --serenity-static-alloc --serenity-pipeline --serenity-pipeline=concat=inplace
  --serenity-pipeline=target=cortex-m "--serenity-pipeline=io=arena arena=argument"
  --serenity-pipeline=strict=true --serenity-pipeline=outline-min-ops=0
  --serenity-outline-kernels=min-ops=0 --serenity-int8-conv-kernels
  --serenity-int8-conv-kernels=target=generic --serenity-apply-scale-32
  --serenity-pipeline=conv-kernels=dot)
inputs=0 bad=0
for input in "$dir"/*.mlir; do
  inputs=$((inputs + 1))
  for pass in "${passes[@]}"; do
    timeout 60 "$opt" "$input" "$pass" -o /dev/null > "$dir/out.txt" 2>&1
    status=$?
    if [ $status -gt 1 ] || grep -q "PLEASE submit\|Stack dump" "$dir/out.txt"; then
      echo "crash or hang (status $status): $(basename "$input") $pass"
      head -5 "$dir/out.txt"
      bad=$((bad + 1))
    fi
  done
done
echo "checked $inputs inputs x ${#passes[@]} pass lists, $bad crashes or hangs"
