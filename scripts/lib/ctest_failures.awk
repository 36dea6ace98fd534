# Prints, from a `ctest --output-on-failure` log, each failed test's result
# line and the first lines of its output, so that a stage's last lines (all
# that a CI summary may show) say why it failed, not only which tests did.
# Usage: awk -f scripts/lib/ctest_failures.awk LOG
/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: .*\*\*\*(Failed|Timeout|Exception)/ {
  shown = 1
  lines = 0
  print ""
  print
  next
}
# The next test's start or result ends a failed test's output.
/^ *Start +[0-9]+: / || /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / { shown = 0 }
/^[0-9]+% tests passed/ { shown = 0 }
shown && lines++ < 40 { print }
