#!/usr/bin/env bash
# Writes trainer's man page with Debian's help2man, from the program itself:
# the main --help, then every command's --help (the list `trainer help`
# prints), the exit codes and the environment. The build runs it
# (apps/trainer/CMakeLists.txt), so the page never drifts from the options.
#
# Usage: scripts/man-page.sh TRAINER_BINARY OUTPUT.1
set -euo pipefail
binary=$1
output=$2
include=$(mktemp)
trap 'rm -f "$include" "$output.tmp"' EXIT

# roff: a backslash is \e; a minus is \- (a bare - may print as a hyphen
# that a pasted option would not match); a line that starts with . or '
# would be a request.
roff_text() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\([.']\)/\\\\\&\1/"; }

commands=$("$binary" help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && /^  [a-z]/ {print $1}')
[ -n "$commands" ] || { echo "man-page: $binary help listed no commands" >&2; exit 1; }

{
  echo '[COMMANDS]'
  for command in $commands; do
    echo ".SS \"trainer $command\""
    echo '.nf'
    # argv[0] "trainer": the usage line shows the name, not the build path.
    (exec -a trainer "$binary" "$command" --help) | roff_text
    echo '.fi'
  done
  cat <<'EOF'
[EXIT STATUS]
.TP
.B 0
success
.TP
.B 1
internal error (a bug)
.TP
.B 2
usage or configuration error; every problem is listed with file:line:column
.TP
.B 3
data error: a data set missing, truncated or corrupt
.TP
.B 4
I/O error: a run directory, log or checkpoint cannot be written or read, or a checkpoint is damaged
.TP
.B 5
device error: a requested device does not exist or this LibTorch cannot use it
.TP
.B 6
out of memory: past memory_limit, or the GPU is full; checkpoints already written are intact
.TP
.B 7
the training loss became NaN or infinite
.TP
.B 8
distributed failure: a rank died, stopped responding or could not be reached
.TP
.B 9
interrupted by SIGINT or SIGTERM after saving a checkpoint; resume with trainer run \-\-resume RUN_DIR
.TP
.B 130
a second SIGINT or SIGTERM: stopped at once, without saving
[ENVIRONMENT]
.TP
.B TRAINER_DATA_DIR
a shared data folder, searched after data.path and before each data set's default place
.TP
.B OMP_NUM_THREADS, SLURM_CPUS_PER_TASK
bound the CPU threads a rank takes when cpu_threads is 0
.TP
.B MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK
set by torchrun; SLURM's SLURM_PROCID, SLURM_NTASKS and SLURM_LOCALID are read too
[FILES]
.TP
.I LOG_DIR/EXPERIMENT/RUN/
a run: config.yaml, train.log, metrics.jsonl, run.json, report.html, events.out.tfevents.*, checkpoints/
[SEE ALSO]
The README and docs/ of trainer's source: the config reference, runs and checkpoints, watching training,
distributed training. Bash completion: trainer completion bash.
EOF
} > "$include"

help2man --no-info --section 1 --name "train neural networks from a YAML experiment file on LibTorch" \
  --include "$include" --output "$output.tmp" "$binary"
mv "$output.tmp" "$output"
