for f in rw48_0 rw48_1 rw48_2 rw48_3 rw48_4 rd60_0 rd60_1 rd60_2 rd60_3 rd60_4 rd100_0 rd100_1 rd100_2; do
  "$(dirname "$0")/../../build/bin/serenity-opt" $f.mlir --serenity-schedule="time-limit-ms=10000" -o $f.sched.mlir 2>$f.err
  echo "$f $(grep -o 'serenity.schedule = {[^}]*}' $f.sched.mlir)"
done
