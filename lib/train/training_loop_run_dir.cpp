// TrainingLoop: the run directory, new or resumed, its records and logs.
#include "train/training_loop.h"

#include <unistd.h>

#include <filesystem>

#include "config/config_writer.h"
#include "device/device_select.h"
#include "device/gpu.h"
#include "runs/input_encoding_file.h"
#include "runs/resume_config.h"
#include "watch/run_report_writer.h"
#include "watch/sample_image_files.h"
#include "watch/steps_log.h"
#include "watch/tensorboard_log.h"
#include "train/validation.h"
#include "util/atomic_file.h"
#include "util/logging.h"
#include "util/read_file.h"
#include "util/text.h"
#include "util/torch_compat.h"

namespace trainer {
namespace {

// The folder to point TensorBoard at: log.dir, which shows this run beside
// the others, when the run lives below it; else the run itself (a run placed
// with --run-dir, or resumed from somewhere else).
std::string tensorboard_logdir(const std::string& run, const std::string& log_dir) {
  std::error_code error;
  const std::filesystem::path inside =
      std::filesystem::weakly_canonical(run, error).lexically_relative(std::filesystem::weakly_canonical(log_dir, error));
  if (error || inside.empty() || *inside.begin() == "..") return run;
  return log_dir;
}

}  // namespace

void TrainingLoop::record_end(int exit_code, const std::string& error) {
  if (!cluster_.is_root() || record_.run().path.empty()) return;
  record_.finish(exit_code, error);
  try {
    record_.write();
    for (auto& observer : observers_) observer->on_end();
  } catch (const Error& e) {
    if (exit_code == static_cast<int>(ExitCode::kSuccess)) throw;
    log().warn("{}", e.what());
  }
}

void TrainingLoop::lock_run() {
  // A supervisor that started this node's ranks holds the lock for them.
  const bool supervised = options_.launch && !options_.launch->run_dir.empty();
  if (cluster_.is_root() && !supervised) run_lock_ = lock_run_dir(run_);
}

void TrainingLoop::start_new_run() {
  // Made once the experiment has loaded, so a bad data set leaves no
  // empty run directory; a supervisor made it before starting the ranks.
  if (cluster_.is_root())
    run_ = options_.launch && !options_.launch->run_dir.empty()
               ? RunDir{options_.launch->run_dir}
               : open_run_dir(config_.log.dir, config_.experiment.name, config_.log.run_name, {}, options_.run_dir);
  run_.path = cluster_.communicator().share_from_rank0("run directory", run_.path);
  lock_run();
  if (cluster_.is_root()) {
    write_file_atomic(run_.config(), to_yaml(config_));
    record_ = run_record();
    record_.write();
    write_recorded_inputs(run_.path, experiment_.data.info, experiment_.data.encoding);
    // Once the run has started: a run that never starts is removed, and latest never points at it.
    if (const std::string problem = update_latest_link(run_, config_.log.dir, config_.experiment.name); !problem.empty())
      log().warn("{}", problem);
  }
  open_logs();
}

// run.json's record of this run, before anything is written to it.
RunRecord TrainingLoop::run_record() const {
  RunRecord record(run_, config_, options_.version, cluster_.world_size());
  record.set_class_names(experiment_.data.info.class_names);
  record.set_precision(precision_.type_name());
  return record;
}

void TrainingLoop::resume_run() {
  const ResumePoint point = find_resume_point(options_.resume);
  run_ = point.run;
  lock_run();  // before a line is written to it
  open_logs();
  if (cluster_.is_root()) {
    record_ = run_record();
    record_.set_metrics_jsonl(read_text_file(run_.metrics()).value_or(""));
    record_.write();
    // A run begun before trainer kept inputs.json gains it.
    write_recorded_inputs(run_.path, experiment_.data.info, experiment_.data.encoding);
  }
  const std::string checkpoint = load_newest_usable(point, state_, *experiment_.model.net, optimizer_.get(),
                                                    device_, to_string(config_.optimizer.name()));
  if (cluster_.is_root()) keep_config_in_force(run_, to_yaml(config_));
  if (LossScaler* scaler = precision_.scaler(); scaler && state_.loss_scaler.defined())
    scaler->load_state(state_.loss_scaler);
  if (device_.is_cuda() && state_.rng_gpu.defined()) set_gpu_rng_state(device_.index(), state_.rng_gpu);
  // A checkpoint from before train.ema was set starts the average afresh.
  if (average_) state_.weight_average.defined() ? average_->load_state(state_.weight_average) : average_->reset();
  // Mid-epoch metric sums are the sums over all ranks: one rank carries them.
  if (!cluster_.is_root() && state_.epoch_metric_sums.defined())
    state_.epoch_metric_sums = torch::zeros_like(state_.epoch_metric_sums);
  if (cluster_.is_root()) {
    truncate_metrics(run_, state_.epoch);
    remove_debris(run_);
    record_.set_metrics_jsonl(read_text_file(run_.metrics()).value_or(""));
    record_.set_resumed_from(checkpoint);
    if (state_.monitor.best_epoch > 0) record_.set_best_checkpoint_epoch(state_.monitor.best_epoch);
    record_.write();
  }
  log().info("resumed from {} (epoch {} done, step {} of the next)", checkpoint, state_.epoch,
             state_.step_in_epoch);
}

void TrainingLoop::open_observers() {
  if (!cluster_.is_root()) return;
  observers_.push_back(std::make_unique<StepsLog>(run_.steps()));
  if (config_.log.tensorboard) {
    auto tensorboard = std::make_unique<TensorBoardLog>(run_.path);
    log().info("TensorBoard: {} (tensorboard --logdir {})", tensorboard->path(),
               tensorboard_logdir(run_.path, config_.log.dir));
    observers_.push_back(std::move(tensorboard));
  }
  if (has_image_targets(config_.data)) observers_.push_back(std::make_unique<SampleImageFiles>(run_.path));
  observers_.push_back(std::make_unique<RunReportWriter>(run_.path));
  for (auto& observer : observers_) observer->on_start(state_.global_step, to_yaml(config_));
}

void TrainingLoop::open_logs() {
  if (cluster_.is_root()) add_log_file(run_.log());
  if (cluster_.distributed()) add_worklog(run_.path + "/worklog." + std::to_string(cluster_.rank()));
}

void TrainingLoop::log_header() const {
  int64_t parameters = 0;
  for (const auto& layer : experiment_.model.summary) parameters += layer.parameters;
  for (const std::string& warning : runtime_.warnings) log().warn("{}", warning);
  log().info("trainer {} on LibTorch {}: {} ({}), BLAS {} ({})", options_.version, compat::torch_version(),
             count_of(runtime_.threads, "intra-op thread"), runtime_.threads_decided_by, runtime_.blas.name,
             runtime_.blas.threads_pinned ? count_of(config_.blas_threads, "thread") : "threads not pinned");
  log().info("device {}", describe_device(device_));
  if (cluster_.distributed())
    log().info("rank {} of {} (local rank {}, pid {}): {}; gradient buckets of {} MiB", cluster_.rank(),
               cluster_.world_size(), cluster_.launch().local_rank, static_cast<int>(getpid()),
               cluster_.communicator().describe(), config_.dist.bucket_mb);
  if (!cluster_.backend_note().empty()) log().info("{}", cluster_.backend_note());
  log().info("model: {}, {}, {} forward multiply-adds a sample; optimizer {}, lr {}; precision {}",
             count_of(static_cast<int64_t>(experiment_.model.summary.size()) - (experiment_.model.is_graph ? 1 : 0),
                      "layer"),
             count_of(parameters, "parameter"),
             format_count_si(static_cast<double>(experiment_.model.forward_multiply_adds())),
             to_string(config_.optimizer.name()), *config_.optimizer.lr, precision_.describe());
  if (!precision_.note().empty()) log().info("{}", precision_.note());
  if (!runtime_.memory_budget.empty()) log().info("{}", runtime_.memory_budget);
  const int64_t accumulate = config_.train.accumulate;
  log().info("batch {} per device, global {}{}; {} per epoch; {}; run directory {}", config_.train.batch_size.value,
             config_.train.batch_size.value * cluster_.world_size(),
             accumulate > 1 ? ", " + std::to_string(accumulate) + " accumulated a step (" +
                                  std::to_string(config_.train.batch_size.value * cluster_.world_size() * accumulate) +
                                  " samples)"
                            : std::string(),
             count_of(steps_per_epoch_, "step"), count_of(config_.train.epochs, "epoch"), run_.path);
}

void TrainingLoop::log_identity_baseline() {
  cluster_.set_phase(Phase::kValidation, state_.epoch, 0);
  const std::vector<MetricValue> baseline = identity_baseline(experiment_.data.valid, config_, cluster_.communicator());
  std::string line = format_valid_line(baseline);
  line.pop_back();  // its newline
  log().info("validation baseline, the inputs as they are: {}", line);
  if (!cluster_.is_root()) return;
  record_.set_identity_baseline(baseline);
  record_.write();
}

}  // namespace trainer
