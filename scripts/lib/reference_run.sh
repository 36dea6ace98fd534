# shellcheck shell=bash
# Sourced by the bench scripts: one quiet run of a reference experiment.
#
# reference_run TRAINER EXPERIMENT LOG_DIR RUN_NAME [--set KEY=VALUE ...]
#   runs configs/EXPERIMENT.yaml with TRAINER, its run directory
#   LOG_DIR/EXPERIMENT/RUN_NAME (metrics.jsonl there), TensorBoard off, the
#   console quiet; the Reuters experiment reads the SGML corpus in
#   $TRAINER_DATA_DIR/reuters21578. Fails as trainer fails. The run goes
#   through the command in the array reference_run_wrapper when the caller
#   sets one (a function's `local reference_run_wrapper=(/usr/bin/time ...)`
#   holds for its own calls only), so that a measuring tool wraps trainer
#   alone and not this function's shell.
reference_run_wrapper=()
reference_run() {
  local trainer=$1 experiment=$2 log_dir=$3 run_name=$4
  shift 4
  local reuters=()
  [ "$experiment" = reuters_conv1d ] && reuters=(--set "data.path=$(reference_corpus)")
  "${reference_run_wrapper[@]}" "$trainer" run "configs/$experiment.yaml" --quiet --log-level warn \
    --set "log.dir=$log_dir" --set "log.run_name=$run_name" --set log.tensorboard=false "${reuters[@]}" "$@" >/dev/null
}

# reference_corpus: where the Reuters experiment's corpus is read from.
reference_corpus() { echo "${TRAINER_DATA_DIR:-}/reuters21578"; }

# require_reference_data SCRIPT EXPERIMENT: exits 2, saying so, when the
# experiment needs the Reuters corpus and $TRAINER_DATA_DIR does not hold it
# (for a script that measures the experiment it was asked for or nothing;
# the ones that leave Reuters out instead test reference_corpus themselves).
require_reference_data() {
  [ "$2" != reuters_conv1d ] || [ -d "$(reference_corpus)" ] ||
    { echo "$1: no $(reference_corpus) (set TRAINER_DATA_DIR)" >&2; exit 2; }
}
