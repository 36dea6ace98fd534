# shellcheck shell=bash
# Sourced by the bench scripts: one quiet run of a reference experiment.
#
# reference_run TRAINER EXPERIMENT LOG_DIR RUN_NAME [--set KEY=VALUE ...]
#   runs configs/EXPERIMENT.yaml with TRAINER, its run directory
#   LOG_DIR/EXPERIMENT/RUN_NAME (metrics.jsonl there), TensorBoard off, the
#   console quiet; the Reuters experiment reads the SGML corpus in
#   $TRAINER_DATA_DIR/reuters21578. Fails as trainer fails.
reference_run() {
  local trainer=$1 experiment=$2 log_dir=$3 run_name=$4
  shift 4
  local reuters=()
  [ "$experiment" = reuters_conv1d ] && reuters=(--set "data.path=${TRAINER_DATA_DIR:-}/reuters21578")
  "$trainer" run "configs/$experiment.yaml" --quiet --log-level warn --set "log.dir=$log_dir" \
    --set "log.run_name=$run_name" --set log.tensorboard=false "${reuters[@]}" "$@" >/dev/null
}
