#include "train/trainer.h"

#include <cmath>
#include <filesystem>

#include <unistd.h>

#include <ATen/record_function.h>

#include "config/config_writer.h"
#include "data/batch_loader.h"
#include "data/sampler.h"
#include "distributed/cluster.h"
#include "device/device_memory.h"
#include "device/device_select.h"
#include "device/gpu.h"
#include "device/gpu_monitor.h"
#include "distributed/gradient_reducer.h"
#include "distributed/rank_device.h"
#include "train/checkpoint.h"
#include "device/runtime.h"
#include "train/epoch_batches.h"
#include "train/experiment_setup.h"
#include "train/lr_schedule.h"
#include "train/metrics.h"
#include "train/optimizer_factory.h"
#include "train/mixed_precision.h"
#include "train/progress.h"
#include "train/resume_config.h"
#include "train/run_dir.h"
#include "train/run_record.h"
#include "train/sample_images.h"
#include "train/step_monitor.h"
#include "train/step_profiler.h"
#include "train/steps_log.h"
#include "train/run_report_writer.h"
#include "train/tensorboard_log.h"
#include "train/train_step.h"
#include "train/validation.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/read_file.h"
#include "util/signals.h"
#include "util/stopwatch.h"
#include "util/text.h"
#include "util/torch_compat.h"

namespace trainer {
namespace {

int ranks_on_this_host(const RunOptions& options) { return options.launch ? options.launch->local_world_size : 1; }
// srun starts each rank as a task of its own, with its own SLURM_CPUS_PER_TASK.
bool rank_is_slurm_task(const RunOptions& options) { return options.launch && options.launch->rank_is_slurm_task; }

torch::Device rank_device(const ExperimentConfig& config, const RunOptions& options) {
  return resolve_device(device_of_local_rank(config.devices.entries, options.launch ? options.launch->local_rank : 0));
}

class TrainingLoop {
 public:
  TrainingLoop(const ExperimentConfig& config, const RunOptions& options)
      : config_(config),
        options_(options),
        device_(rank_device(config, options)),
        runtime_(configure_runtime(config, device_, ranks_on_this_host(options), rank_is_slurm_task(options))),
        cluster_(options.launch, config.dist, config.devices.entries),
        experiment_(prepare_experiment(config, device_)),
        optimizer_(make_optimizer(config.optimizer, experiment_.model.net->parameters())),
        precision_(config, device_),
        meters_(config.loss, config.metrics, experiment_.model.final_softmax, config.data.images.value_range()),
        progress_(config.log.progress, options.quiet || !cluster_.is_root()),
        monitor_(config.log, device_),
        profiler_(config.train.profile, cluster_.rank()) {
    const int64_t global_batch = config.train.batch_size * cluster_.world_size();
    const int64_t batches = (experiment_.data.train.size() + global_batch - 1) / global_batch;
    steps_per_epoch_ = config.train.steps_per_epoch > 0 ? std::min(batches, config.train.steps_per_epoch) : batches;
    if (cluster_.distributed()) {
      cluster_.require_same("experiment config", to_yaml(config));
      cluster_.require_same("data", std::to_string(experiment_.data.train.size()) + "/" +
                                        std::to_string(experiment_.data.valid.size()));
      // Every rank starts from rank 0's weights, whatever its generator did.
      std::vector<torch::Tensor> state = experiment_.model.net->parameters();
      for (auto& buffer : experiment_.model.net->buffers()) state.push_back(buffer);
      cluster_.communicator().broadcast(state, 0);
      reducer_ = std::make_unique<GradientReducer>(cluster_.communicator(), experiment_.model.net->parameters(),
                                                   config.dist.bucket_mb);
    }
    step_ = std::make_unique<TrainStep>(config, experiment_.model, *optimizer_, precision_, device_, reducer_.get());
    if (device_.is_cuda()) {
      gpu_monitor_ = std::make_unique<GpuMonitor>("libnvidia-ml.so.1", gpu_pci_bus_id(device_.index()), device_.index());
      if (!gpu_monitor_->available()) log().info("GPU utilisation not sampled: {}", gpu_monitor_->why());
    }
  }

  RunSummary run() {
    options_.resume.empty() ? start_new_run() : resume_run();
    profiler_.set_run_dir(run_.path);
    open_observers();
    log_header();
    if (has_image_targets(config_.data)) log_identity_baseline();
    RunSummary summary{run_.path, {}};
    try {
      for (int64_t epoch = state_.epoch + 1; epoch <= config_.train.epochs; ++epoch)
        summary.records.push_back(run_epoch(epoch));
    } catch (const c10::OutOfMemoryError& e) {
      // The CUDA caching allocator's (the CPU's budget throws ours directly).
      throw gpu_out_of_memory(device_, e.what_without_backtrace(), out_of_memory_hint(config_, device_));
    }
    cluster_.finish();
    log().info("done: {}; run directory {}", count_of(config_.train.epochs, "epoch"), run_.path);
    record_end(static_cast<int>(ExitCode::kSuccess), "");
    return summary;
  }

  // RUN_DIR/run.json's last version, once the run directory exists: rank 0
  // writes it. A failure to write it must not hide why the run ended, so it
  // is only warned about when the run failed anyway.
  void record_end(int exit_code, const std::string& error) {
    if (!cluster_.is_root() || record_.run().path.empty()) return;
    record_.finish(exit_code, error);
    if (exit_code == static_cast<int>(ExitCode::kSuccess)) {
      record_.write();
      for (auto& observer : observers_) observer->on_end();
      return;
    }
    try {
      record_.write();
      for (auto& observer : observers_) observer->on_end();
    } catch (const Error& e) {
      log().warn("{}", e.what());
    }
  }

  // Tells the other ranks this one is failing, so they stop at once and name it.
  void mark_failed(const std::string& reason) { cluster_.mark_failed(reason); }

 private:
  void start_new_run() {
    // Made once the experiment has loaded, so a bad data set leaves no
    // empty run directory; a supervisor made it before starting the ranks.
    if (cluster_.is_root())
      run_ = options_.launch && !options_.launch->run_dir.empty()
                 ? RunDir{options_.launch->run_dir}
                 : open_run_dir(config_.log.dir, config_.experiment.name, config_.log.run_name, {}, options_.run_dir);
    run_.path = cluster_.communicator().share_from_rank0("run directory", run_.path);
    if (cluster_.is_root()) {
      write_file_atomic(run_.config(), to_yaml(config_));
      record_ = RunRecord(run_, config_, options_.version, cluster_.world_size());
      record_.write();
      // Once the run has started: a run that never starts is removed, and latest never points at it.
      if (const std::string problem = update_latest_link(run_, config_.log.dir, config_.experiment.name); !problem.empty())
        log().warn("{}", problem);
    }
    open_logs();
  }

  void resume_run() {
    const ResumePoint point = find_resume_point(options_.resume);
    run_ = point.run;
    open_logs();
    if (cluster_.is_root()) {
      record_ = RunRecord(run_, config_, options_.version, cluster_.world_size());
      record_.set_metrics_jsonl(read_text_file(run_.metrics()).value_or(""));
      record_.write();
    }
    const std::string checkpoint = load_newest_usable(point, state_, *experiment_.model.net, optimizer_.get(),
                                                      device_, to_string(config_.optimizer.name));
    if (cluster_.is_root()) keep_config_in_force(run_, to_yaml(config_));
    if (LossScaler* scaler = precision_.scaler(); scaler && state_.loss_scaler.defined())
      scaler->load_state(state_.loss_scaler);
    if (device_.is_cuda() && state_.rng_gpu.defined()) set_gpu_rng_state(device_.index(), state_.rng_gpu);
    // Mid-epoch metric sums are the sums over all ranks: one rank carries them.
    if (!cluster_.is_root() && state_.epoch_metric_sums.defined())
      state_.epoch_metric_sums = torch::zeros_like(state_.epoch_metric_sums);
    if (cluster_.is_root()) {
      truncate_metrics(run_, state_.epoch);
      remove_debris(run_);
      record_.set_metrics_jsonl(read_text_file(run_.metrics()).value_or(""));
      record_.set_resumed_from(checkpoint);
      record_.write();
    }
    log().info("resumed from {} (epoch {} done, step {} of the next)", checkpoint, state_.epoch,
               state_.step_in_epoch);
  }

  // Rank 0 records the run for TensorBoard (and whatever else watches it).
  void open_observers() {
    if (!cluster_.is_root()) return;
    observers_.push_back(std::make_unique<StepsLog>(run_.steps()));
    if (config_.log.tensorboard) {
      auto tensorboard = std::make_unique<TensorBoardLog>(run_.path);
      log().info("TensorBoard: {} (tensorboard --logdir {})", tensorboard->path(), config_.log.dir);
      observers_.push_back(std::move(tensorboard));
    }
    observers_.push_back(std::make_unique<RunReportWriter>(run_.path));
    for (auto& observer : observers_) observer->on_start(state_.global_step, to_yaml(config_));
  }

  void open_logs() {
    if (cluster_.is_root()) add_log_file(run_.log());
    if (cluster_.distributed()) add_worklog(run_.path + "/worklog." + std::to_string(cluster_.rank()));
  }

  void log_header() const {
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
    log().info("model: {}, {}; optimizer {}, lr {}; precision {}",
               count_of(static_cast<int64_t>(experiment_.model.summary.size()) - (experiment_.model.is_graph ? 1 : 0),
                        "layer"),
               count_of(parameters, "parameter"),
               to_string(config_.optimizer.name), *config_.optimizer.lr, precision_.describe());
    if (!runtime_.memory_budget.empty()) log().info("{}", runtime_.memory_budget);
    log().info("batch {} per device, global {}; {} per epoch; {}; run directory {}", config_.train.batch_size,
               config_.train.batch_size * cluster_.world_size(), count_of(steps_per_epoch_, "step"),
               count_of(config_.train.epochs, "epoch"), run_.path);
  }

  // What the model must beat: the validation inputs taken as they are.
  void log_identity_baseline() {
    cluster_.set_phase(Phase::kValidation, state_.epoch, 0);
    const std::vector<MetricValue> baseline = identity_baseline(experiment_.data.valid, config_, cluster_.communicator());
    std::string line = format_valid_line(baseline);
    line.pop_back();  // its newline
    log().info("validation baseline, the inputs as they are: {}", line);
    if (!cluster_.is_root()) return;
    record_.set_identity_baseline(baseline);
    record_.write();
  }

  EpochRecord run_epoch(int64_t epoch) {
    Stopwatch clock;
    EpochRecord record;
    record.epoch = epoch;
    if (reducer_) reducer_->reset_stats();
    if (gpu_monitor_) gpu_monitor_->take();  // what came before the epoch is not its own
    // A resumed epoch goes on counting from its checkpoint's figure.
    if (LossScaler* scaler = precision_.scaler(); scaler && state_.step_in_epoch == 0) scaler->reset_skipped_steps();
    const double data_wait = train_steps(epoch, record);
    if (const LossScaler* scaler = precision_.scaler()) {
      record.loss_scale = scaler->scale_value();
      record.skipped_steps = scaler->skipped_steps();
    }
    record.train_seconds = clock.seconds();
    sum_over_ranks(meters_);
    record.train = meters_.results();
    if (!std::isfinite(record.train[0].value))
      throw DivergedError("the training loss became " + format_float9(record.train[0].value) + " in epoch " +
                              std::to_string(epoch),
                          diverged_hint());
    const bool last = epoch == config_.train.epochs;
    if (last || epoch % config_.train.validate_every == 0) {
      cluster_.set_phase(Phase::kValidation, epoch, record.steps);
      record.valid = validate_model(experiment_.model, experiment_.data.valid, config_, device_, cluster_.communicator(),
                                    &progress_);
    }
    record.seconds = clock.seconds();
    record.samples_per_second = static_cast<double>(meters_.samples()) / record.train_seconds;
    record.data_wait_seconds = data_wait;

    const MemoryUsage memory = device_memory_usage(device_);
    record.peak_memory_bytes = memory.peak_bytes;
    if (gpu_monitor_) {
      const GpuSamples samples = gpu_monitor_->take();
      record.gpu_samples = samples.count;
      record.gpu_utilization = samples.mean_utilization;
      record.gpu_memory_used_bytes = samples.peak_memory_used_bytes;
    }

    if (cluster_.is_root()) {
      emit_record(format_epoch_record(record, local_time_hms()));
      append_metrics(record);
      for (auto& observer : observers_) observer->on_epoch(record, state_.global_step);
      if (config_.log.tensorboard && has_image_targets(config_.data)) {
        const auto images = sample_images(experiment_.model, experiment_.data.valid, config_, device_);
        for (auto& observer : observers_) observer->on_images(images, state_.global_step);
      }
    }
    log().info("epoch {}: {:.2f} s ({:.2f} s training), {:.0f} samples/s, data wait {:.2f}% of training, peak memory "
               "{}{}", epoch, record.seconds, record.train_seconds, record.samples_per_second,
               100.0 * data_wait / record.train_seconds, format_mib(memory.peak_bytes),
               memory.budget_bytes > 0 ? " of " + format_mib(memory.budget_bytes) : std::string());
    if (record.timed_steps > 0) log().info("epoch {}: step time {}", epoch, describe_step_times(record));
    if (reducer_)
      log().info("epoch {}: gradient all-reduce {} buckets per step; waiting for it took {:.2f} s, {:.1f}% of training",
                 epoch, reducer_->stats().buckets_per_step, reducer_->stats().finalize_seconds,
                 100.0 * reducer_->stats().finalize_seconds / record.train_seconds);
    if (last || epoch % config_.train.checkpoint_every == 0) save(epoch, 0);
    return record;
  }

  void sum_over_ranks(MetricAccumulator& meters) {
    if (!cluster_.distributed()) return;
    auto sums = meters.state();
    cluster_.communicator().all_reduce(sums);
    meters.load_state(sums);
  }

  // Returns the seconds spent waiting for data.
  double train_steps(int64_t epoch, EpochRecord& record) {
    int64_t step = 0;
    meters_.reset();
    if (state_.step_in_epoch > 0) {
      step = state_.step_in_epoch;
      meters_.load_state(state_.epoch_metric_sums);
      state_.step_in_epoch = 0;
    }
    const int64_t first_step = step;
    monitor_.start_epoch(meters_);
    RankBatches batches = epoch_batches(config_, experiment_.data.train.size(), epoch, step, steps_per_epoch_,
                                        cluster_.communicator());
    LoaderOptions options = loader_options(config_.data);
    options.batch_sizes = batches.batch_sizes;
    options.epoch = epoch;
    BatchLoader loader(experiment_.data.train, std::move(batches.order), options);
    progress_.start(epoch, config_.train.epochs, steps_per_epoch_);
    size_t index = 0;
    while (true) {
      cluster_.set_phase(Phase::kData, epoch, step + 1);
      profiler_.before_step(epoch, step + 1);
      RECORD_USER_SCOPE("trainer/step");
      StepTimer* timer = monitor_.before_step();
      auto batch = [&] {
        RECORD_USER_SCOPE("trainer/data_wait");
        return loader.next();
      }();
      if (!batch) break;
      cluster_.check();
      const double global_size = static_cast<double>(batches.global_sizes[index++]);
      record.lr = scheduled_lr(config_.optimizer.schedule, *config_.optimizer.lr,
                               static_cast<double>(state_.global_step) / static_cast<double>(steps_per_epoch_),
                               static_cast<double>(config_.train.epochs));
      // Every rank votes on stopping; the votes travel with the gradients,
      // so all ranks stop after the same step.
      cluster_.set_phase(Phase::kCompute, epoch, step + 1);
      StepExtras extras;
      extras.meters = &meters_;
      extras.timer = timer;
      extras.before_all_reduce = [&] { cluster_.set_phase(Phase::kAllReduce, epoch, step + 1); };
      const bool stop = step_->run(*batch, record.lr, static_cast<double>(batch->size()) / global_size,
                                  interrupt_requested(), extras).stop;
      ++step;
      ++state_.global_step;
      record.steps = step;
      report_step(epoch, record.lr);
      profiler_.after_step();
      progress_.update(step, meters_.samples(), [&] { return meters_.running_values(); });
      if (step % config_.train.check_finite_every == 0) stop_if_diverged(epoch, step);
      if (stop) stop_for_interrupt(epoch, step);
    }
    progress_.finish();
    profiler_.end_epoch();
    monitor_.fill(record, step - first_step);
    return loader.wait_seconds();
  }

  void report_step(int64_t epoch, double lr) {
    const LossScaler* scaler = precision_.scaler();
    const auto point = monitor_.after_step(state_.global_step, epoch, lr, meters_, scaler ? scaler->scale_value() : 0,
                                           !observers_.empty());
    if (!point) return;
    for (auto& observer : observers_) observer->on_step(*point);
  }

  // A diverged run stops within `check_finite_every` steps instead of
  // training on NaN to the epoch's end, and saves nothing. Every rank checks
  // after the same step and learns whether any rank's loss diverged.
  void stop_if_diverged(int64_t epoch, int64_t step) {
    torch::Tensor non_finite = meters_.loss_non_finite();
    if (cluster_.distributed()) cluster_.communicator().all_reduce(non_finite, ReduceOp::kMax);
    if (non_finite.item<double>() == 0) return;
    progress_.finish();
    throw DivergedError("the training loss became NaN or infinite in epoch " + std::to_string(epoch) + " by step " +
                            std::to_string(step) + " (checked every " +
                            std::to_string(config_.train.check_finite_every) + " steps); no checkpoint saved",
                        diverged_hint());
  }

  std::string diverged_hint() const {
    return "lower optimizer.lr, or set optimizer.clip_norm; the last good checkpoint is in " + run_.checkpoints();
  }

  [[noreturn]] void stop_for_interrupt(int64_t epoch, int64_t step) {
    progress_.finish();
    const bool epoch_done = step >= steps_per_epoch_;
    const std::string path = save(epoch_done ? epoch : epoch - 1, epoch_done ? 0 : step);
    throw InterruptedError("interrupted in epoch " + std::to_string(epoch) + " after step " + std::to_string(step) +
                           "; checkpoint saved to " + path + "\nresume with: " + resume_command(run_.path));
  }

  // Every rank enters; rank 0 writes once all have finished the step, and
  // the others wait until the file is complete.
  std::string save(int64_t epochs_done, int64_t step_in_epoch) {
    cluster_.set_phase(Phase::kCheckpoint, epochs_done, step_in_epoch);
    Stopwatch clock;
    TrainingState state = state_;
    state.optimizer = to_string(config_.optimizer.name);
    if (const LossScaler* scaler = precision_.scaler()) state.loss_scaler = scaler->state();
    if (device_.is_cuda()) state.rng_gpu = gpu_rng_state(device_.index());
    state.epoch = epochs_done;
    state.step_in_epoch = step_in_epoch;
    if (step_in_epoch > 0) {
      MetricAccumulator global = meters_;
      sum_over_ranks(global);
      state.epoch_metric_sums = global.state();
    }
    const std::string path = run_.checkpoint_for(step_in_epoch > 0 ? epochs_done + 1 : epochs_done, step_in_epoch);
    // Every rank holds the same weights, so every rank refuses together.
    require_finite_weights(*experiment_.model.net, path);
    cluster_.communicator().barrier();
    if (cluster_.is_root()) {
      save_checkpoint(path, *experiment_.model.net, *optimizer_, state);
      prune_checkpoints(run_, config_.train.keep_checkpoints);
      log().info("checkpoint {} ({:.1f} KiB, {:.2f} s)", path,
                 static_cast<double>(std::filesystem::file_size(path)) / 1024.0, clock.seconds());
    }
    cluster_.communicator().barrier();
    return path;
  }

  void append_metrics(const EpochRecord& record) {
    append_to_file(run_.metrics(), format_metrics_json(record));
    throw_if_log_write_failed();
    record_.add_epoch(record);
    record_.write();
  }

  const ExperimentConfig& config_;
  RunOptions options_;
  torch::Device device_;
  RuntimeInfo runtime_;
  Cluster cluster_;
  Experiment experiment_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  MixedPrecision precision_;
  MetricAccumulator meters_;
  ProgressBar progress_;
  std::unique_ptr<GradientReducer> reducer_;
  std::unique_ptr<TrainStep> step_;
  StepMonitor monitor_;
  StepProfiler profiler_;
  std::unique_ptr<GpuMonitor> gpu_monitor_;  // GPUs with NVML
  std::vector<std::unique_ptr<RunObserver>> observers_;  // rank 0's
  RunDir run_;
  RunRecord record_;  // rank 0's
  TrainingState state_;
  int64_t steps_per_epoch_ = 0;
};

}  // namespace

RunSummary run_training(const ExperimentConfig& config, const RunOptions& options) {
  if (options.launch) set_log_rank(options.launch->rank);
  std::unique_ptr<TrainingLoop> loop;
  try {
    loop = std::make_unique<TrainingLoop>(config, options);
    RunSummary summary = loop->run();
    close_log_file();
    return summary;
  } catch (const InterruptedError& e) {
    if (loop) loop->record_end(static_cast<int>(e.code()), e.what());
    close_log_file();
    throw;
  } catch (const std::exception& e) {
    // Into this rank's worklog (the supervisor shows its last lines), and to
    // the peers, who stop at once naming this rank.
    if (options.launch) {
      log_error_to_files(e.what());
      if (loop) loop->mark_failed(e.what());
    }
    const auto* error = dynamic_cast<const Error*>(&e);
    if (loop) loop->record_end(static_cast<int>(error ? error->code() : ExitCode::kInternal), e.what());
    close_log_file();
    throw;
  }
}

std::vector<MetricValue> evaluate_checkpoint(const ExperimentConfig& config, const std::string& checkpoint) {
  const torch::Device device = primary_device(config.devices.entries);
  configure_runtime(config, device);
  Experiment experiment = prepare_experiment(config, device);
  load_checkpoint(checkpoint, *experiment.model.net, nullptr, device);
  auto single = make_single_process_communicator();
  return validate_model(experiment.model, experiment.data.valid, config, device, *single);
}

}  // namespace trainer
