# shellcheck shell=bash
# Numbered step logs, for the GPU scripts (gpu-check.sh, gpu-lease.sh).
# Sourced, not run; the sourcing script sets `logs` (the folder) first.

step_number=0

# next_step_log NAME: sets step_log to LOGS/NN-NAME.log, NN the next number.
next_step_log() {
  step_number=$((step_number + 1))
  step_log=$(printf '%s/%02d-%s.log' "$logs" "$step_number" "$1")
}
