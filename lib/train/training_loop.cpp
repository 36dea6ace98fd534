#include "train/run_training.h"

#include <cmath>
#include <filesystem>

#include <ATen/record_function.h>

#include "config/config_writer.h"
#include "device/device_memory.h"
#include "train/batch_of_one.h"
#include "train/batch_size_search.h"
#include "device/device_select.h"
#include "device/gpu.h"
#include "distributed/rank_device.h"
#include "distributed/warning_relay.h"
#include "feed/batch_feed.h"
#include "feed/data_placement.h"
#include "optim/lr_schedule.h"
#include "optim/optimizer_factory.h"
#include "optim/weight_average.h"
#include "runs/resume_config.h"
#include "train/epoch_feed.h"
#include "train/initial_weights.h"
#include "train/loss.h"
#include "train/parameter_groups.h"
#include "train/sample_images.h"
#include "train/training_loop.h"
#include "train/validation.h"
#include "util/error.h"
#include "util/logging.h"
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

}  // namespace

TrainingLoop::TrainingLoop(const ExperimentConfig& config, const RunOptions& options)
    : config_(config),
      options_(options),
      device_(rank_device(config, options)),
      runtime_(configure_runtime(config, device_, ranks_on_this_host(options), rank_is_slurm_task(options))),
      cluster_(options.launch, config.dist, config.devices.entries),
      experiment_(prepare_experiment(config, device_)),
      optimizer_(make_optimizer(config.optimizer, lr_scale_groups(experiment_.model, config.optimizer.lr_scale))),
      precision_(config, device_, experiment_.model),
      meters_(config.loss, config.metrics, experiment_.model.final_softmax, config.data.images.value_range(),
              experiment_.model.output_classes()),
      progress_(config.log.progress, options.quiet || !cluster_.is_root(), config.log.progress_seconds),
      monitor_(config.log, device_),
      profiler_(config.train.profile, cluster_.rank(), device_),
      best_(config.train, resolve_monitor(config.train, config.metrics).value_or(MonitorSpec{"loss", false, "loss"})) {
  // Trained weights to start from (a new run only: a resumed one has its own),
  // before rank 0's are broadcast.
  if (options_.resume.empty() && !config.model.init_from.empty()) load_initial_weights(config.model, experiment_.model);
  if (!config.optimizer.lr_scale.rules.empty())
    log().info("optimizer.lr_scale: {}",
               describe_groups(lr_scale_groups(experiment_.model, config.optimizer.lr_scale)));
  const int64_t global_batch = config.train.batch_size.value * cluster_.world_size();
  const int64_t accumulate = config.train.accumulate;
  batches_per_epoch_ = (experiment_.data.train.size() + global_batch - 1) / global_batch;
  if (config.train.steps_per_epoch > 0)
    batches_per_epoch_ = std::min(batches_per_epoch_, config.train.steps_per_epoch * accumulate);
  // An epoch's last step takes the batches that are left, fewer than train.accumulate.
  steps_per_epoch_ = (batches_per_epoch_ + accumulate - 1) / accumulate;
  check_no_batch_of_one(experiment_.model, config.train, experiment_.data.train.size(), cluster_.world_size());
  if (cluster_.distributed()) {
    cluster_.require_same("experiment config", to_yaml(config));
    cluster_.require_same("data", std::to_string(experiment_.data.train.size()) + "/" +
                                      std::to_string(experiment_.data.valid.size()));
    // Every rank starts from rank 0's weights, whatever its generator did.
    std::vector<torch::Tensor> state = experiment_.model.net->parameters();
    for (auto& buffer : experiment_.model.net->buffers()) state.push_back(buffer);
    cluster_.communicator().broadcast(state, 0);
    reducer_ = std::make_unique<GradientReducer>(cluster_.communicator(), experiment_.model.trainable_parameters(),
                                                 config.dist.bucket_mb);
  }
  // From the weights every rank starts with (a resumed run's checkpoint replaces it).
  if (config.train.ema.on())
    average_ = std::make_unique<WeightAverage>(experiment_.model.net->parameters(), config.train.ema.effective_decay());
  if (const std::string placed = place_data(experiment_.data, config.data.on_device, device_, gpu_budget_bytes(device_));
      !placed.empty())
    log().info("{}", placed);
  step_ = std::make_unique<TrainStep>(config, experiment_.model, *optimizer_, precision_, device_, reducer_.get());
  // Class weights from the class ids (the cross-entropy's only: its data sets'
  // labels are class ids, augmented image_folder's too).
  if (config.loss.class_weights.any()) {
    const torch::Tensor weights =
        class_weight_tensor(config.loss, experiment_.data.train.labels, experiment_.data.info.classes);
    step_->set_class_weights(weights);
    if (weights.defined()) {
      std::vector<std::string> shown;
      for (int64_t c = 0; c < weights.size(0); ++c) shown.push_back(fmt::format("{:.4g}", weights[c].item<float>()));
      log().info("loss: class weights {}{}", join(shown, ", "), config.loss.class_weights.balanced ? " (balanced)" : "");
    }
  }
  plan_graph();
  if (device_.is_cuda()) {
    gpu_monitor_ = std::make_unique<GpuMonitor>("libnvidia-ml.so.1", gpu_pci_bus_id(device_.index()), device_.index());
    if (!gpu_monitor_->available()) log().info("GPU utilisation not sampled: {}", gpu_monitor_->why());
  }
}

RunSummary TrainingLoop::run() {
  options_.resume.empty() ? start_new_run() : resume_run();
  profiler_.set_run_dir(run_.path);
  open_observers();
  log_header();
  if (has_image_targets(config_.data)) log_identity_baseline();
  RunSummary summary{run_.path, {}};
  best_.counters = state_.monitor;
  if (best_.exhausted() && state_.epoch < config_.train.epochs)
    log().info("this run stopped early at epoch {}: {} did not improve for {} measurements (best {:.6g} at epoch {}); "
               "nothing to train (raise train.early_stopping.patience to go on)",
               state_.epoch, best_.spec().key, best_.counters.waited, best_.counters.best, best_.counters.best_epoch);
  try {
    for (int64_t epoch = state_.epoch + 1; epoch <= config_.train.epochs && !best_.exhausted(); ++epoch)
      summary.records.push_back(run_epoch(epoch));
    next_epoch_.reset();  // early stopping: its loader's threads end now
    if (config_.train.early_stopping.restore_best) restore_best();
  } catch (const c10::OutOfMemoryError& e) {
    // The CUDA caching allocator's (the CPU's budget throws ours directly).
    throw device_out_of_memory(device_, e.what_without_backtrace(), out_of_memory_hint(config_, device_));
  } catch (const c10::Error& e) {
    // The system refusing the CPU allocator (not our memory_limit).
    if (!compat::is_cpu_allocation_failure(e)) throw;
    throw device_out_of_memory(torch::kCPU, e.what_without_backtrace(), out_of_memory_hint(config_, torch::kCPU));
  } catch (const std::bad_alloc&) {
    throw device_out_of_memory(torch::kCPU, "the system refused an allocation (std::bad_alloc)",
                               out_of_memory_hint(config_, torch::kCPU));
  }
  cluster_.finish();
  if (best_.exhausted())
    log().info("done: stopped early after epoch {} of {}; the best was {} {:.6g} at epoch {} ({}); run directory {}",
               summary.records.empty() ? state_.epoch : summary.records.back().epoch, config_.train.epochs,
               best_.spec().key, best_.counters.best, best_.counters.best_epoch, run_.best_checkpoint(), run_.path);
  else
    log().info("done: {}; run directory {}", count_of(config_.train.epochs, "epoch"), run_.path);
  record_end(static_cast<int>(ExitCode::kSuccess), "");
  return summary;
}

EpochRecord TrainingLoop::run_epoch(int64_t epoch) {
  Stopwatch clock;
  EpochRecord record;
  record.epoch = epoch;
  if (reducer_) reducer_->reset_stats();
  if (gpu_monitor_) gpu_monitor_->take();  // what came before the epoch is not its own
  // A resumed epoch goes on counting from its checkpoint's figure.
  if (LossScaler* scaler = precision_.scaler(); scaler && state_.step_in_epoch == 0) scaler->reset_skipped_steps();
  train_steps(epoch, record);
  // Every rank here, at the same point: the next epoch's loader starts.
  if (epoch < config_.train.epochs)
    next_epoch_ = open_epoch_feed(config_, experiment_.data.train, epoch + 1, 0, batches_per_epoch_,
                                  cluster_.communicator(), device_);
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
  // The averaged weights (train.ema) are the ones validated and shown, until
  // the trained ones come back before anything is saved.
  const bool averaged = average_ && config_.train.ema.evaluate;
  if (averaged) average_->swap_in();
  if (last || epoch % config_.train.validate_every == 0) {
    cluster_.set_phase(Phase::kValidation, epoch, record.steps);
    Validation validation = validate_model(experiment_.model, experiment_.data.valid, config_, device_,
                                           cluster_.communicator(), &progress_, validation_graph_.get());
    record.valid = std::move(validation.metrics);
    record.valid_confusion = std::move(validation.confusion);
  }
  const MonitorVerdict verdict = judge(record);
  record.seconds = clock.seconds();
  record.samples_per_second = static_cast<double>(meters_.samples()) / record.train_seconds;

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
    // The pictures first: the report rewritten at on_epoch shows this epoch's.
    if (has_image_targets(config_.data)) {
      const auto images = sample_images(experiment_.model, experiment_.data.valid, config_, device_);
      for (auto& observer : observers_) observer->on_images(images, state_.global_step);
    }
    for (auto& observer : observers_) observer->on_epoch(record, state_.global_step);
  }
  if (averaged) average_->restore();
  // One line an epoch at the default level, beside its record: time, speed,
  // memory, the monitored figure's verdict, what was saved. The step-time
  // split and the all-reduce (in metrics.jsonl too) are for --log-level debug.
  // On a GPU the host's wait overstates what the input pipeline costs (the
  // host runs ahead of the GPU): the GPU's idle time for it follows.
  const std::string gpu_idle =
      record.gpu_idle_for_data_seconds
          ? fmt::format(" (GPU idle for it {:.2f}%)", 100.0 * *record.gpu_idle_for_data_seconds / record.train_seconds)
          : std::string();
  std::string line = fmt::format("epoch {}: {:.2f} s ({:.2f} s training), {:.0f} samples/s, data wait {:.2f}%{}, peak memory {}{}",
                                 epoch, record.seconds, record.train_seconds, record.samples_per_second,
                                 100.0 * record.data_wait_seconds / record.train_seconds, gpu_idle,
                                 format_mib(memory.peak_bytes),
                                 memory.budget_bytes > 0 ? " of " + format_mib(memory.budget_bytes) : std::string());
  if (record.timed_steps > 0) log().debug("epoch {}: step time {}", epoch, describe_step_times(record));
  if (reducer_)
    log().debug("epoch {}: gradient all-reduce {} buckets per step; waiting for it took {:.2f} s, {:.1f}% of training",
                epoch, reducer_->stats().buckets_per_step, reducer_->stats().finalize_seconds,
                100.0 * reducer_->stats().finalize_seconds / record.train_seconds);
  if (verdict.measured) line += "; " + describe_verdict(best_, verdict);
  std::string saved;
  if (last || record.stopped_early || epoch % config_.train.checkpoint_every == 0) saved = save(epoch, 0);
  if (!saved.empty()) line += "; checkpoint " + std::filesystem::path(saved).filename().string();
  if (verdict.improved) {
    // Said and recorded once best.pt holds it: a failed copy (a full disk)
    // leaves the log and run.json naming the epoch best.pt really holds.
    try {
      keep_best(epoch, saved);
    } catch (const Error&) {
      log().info("{}", line);
      throw;
    }
    line += ", saved as best.pt";
    if (cluster_.is_root()) {
      record_.set_best_checkpoint_epoch(epoch);
      record_.write();
    }
  }
  log().info("{}", line);
  if (record.stopped_early)
    log().info("early stopping: {} did not improve for {} measurements; the best was {:.6g} at epoch {}",
               best_.spec().key, best_.counters.waited, best_.counters.best, best_.counters.best_epoch);
  return record;
}

void TrainingLoop::sum_over_ranks(MetricAccumulator& meters) {
  if (!cluster_.distributed()) return;
  auto sums = meters.state();
  cluster_.communicator().all_reduce(sums);
  meters.load_state(sums);
}

void TrainingLoop::train_steps(int64_t epoch, EpochRecord& record) {
  int64_t step = 0;
  meters_.reset();
  if (state_.step_in_epoch > 0) {
    step = state_.step_in_epoch;
    meters_.load_state(state_.epoch_metric_sums);
    state_.step_in_epoch = 0;
  }
  const int64_t first_step = step;
  const int64_t replayed_before = step_->graphed() ? step_->graphed()->replayed_steps() : 0;
  // A verdict still in flight belongs to the last epoch, whose end checked its loss.
  if (divergence_check_.pending()) divergence_check_.take();
  monitor_.start_epoch(meters_);
  // A step of an interrupted epoch took train.accumulate batches. The feed
  // opened at the last epoch's end has been making batches since.
  const int64_t skip_batches = step * config_.train.accumulate;
  std::unique_ptr<EpochFeed> feed = std::move(next_epoch_);
  if (!feed || feed->epoch != epoch || feed->skip_batches != skip_batches)
    feed = open_epoch_feed(config_, experiment_.data.train, epoch, skip_batches, batches_per_epoch_,
                           cluster_.communicator(), device_);
  BatchFeed& loader = *feed->feed;
  progress_.start(epoch, config_.train.epochs, steps_per_epoch_);
  size_t index = 0;
  std::vector<Batch> group;
  while (true) {
    cluster_.set_phase(Phase::kData, epoch, step + 1);
    profiler_.before_step(epoch, step + 1);
    RECORD_USER_SCOPE("trainer/step");
    StepTimer* timer = monitor_.before_step();
    // The step's batches: train.accumulate of them, fewer at the epoch's end.
    group.clear();
    double global_size = 0, rank_size = 0;
    {
      RECORD_USER_SCOPE("trainer/data_wait");
      while (static_cast<int64_t>(group.size()) < config_.train.accumulate) {
        auto batch = loader.next();
        if (!batch) break;
        global_size += static_cast<double>(feed->global_sizes[index++]);
        rank_size += static_cast<double>(batch->size());
        group.push_back(std::move(*batch));
      }
    }
    if (group.empty()) break;
    cluster_.check();
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
    std::vector<const Batch*> members;
    for (const Batch& batch : group) members.push_back(&batch);
    const double share = global_size > 0 ? rank_size / global_size : 0.0;
    const StepOutcome outcome =
        step_->run_group(members, record.lr, share, interrupt_requested() || requeue_requested(), extras);
    const bool stop = outcome.stop || (outcome.stop_votes.defined() && stop_voted(outcome.stop_votes));
    if (average_ && outcome.stepped) average_->update(outcome.skipped_on_device);
    ++step;
    ++state_.global_step;
    record.steps = step;
    report_step(epoch, record.lr);
    profiler_.after_step();
    progress_.update(step, meters_.samples(), [&] { return meters_.running_values(); });
    if (step % config_.train.check_finite_every == 0) stop_if_diverged(epoch, step);
    if (stop) stop_for_interrupt(epoch, step);
    // Mid-epoch only: the epoch's end has its own checkpoint (train.checkpoint_every).
    if (config_.train.checkpoint_every_steps > 0 && state_.global_step % config_.train.checkpoint_every_steps == 0 &&
        step < steps_per_epoch_) {
      progress_.finish();
      save(epoch - 1, step);
    }
  }
  // The last step's votes, read late on a GPU, are read now.
  if (stop_vote_read_.pending() && stop_vote_read_.take().item<double>() > 0) stop_for_interrupt(epoch, step);
  progress_.finish();
  flush_step_point();
  profiler_.end_epoch();
  monitor_.fill(record, step - first_step);
  if (const GraphedStep* graphed = step_->graphed()) {
    record.graphed = true;
    record.graphed_steps = graphed->replayed_steps() - replayed_before;
  }
  record.data_wait_seconds = loader.wait_seconds();
  record.gpu_idle_for_data_seconds = loader.device_idle_seconds();
}

void TrainingLoop::report_step(int64_t epoch, double lr) {
  const LossScaler* scaler = precision_.scaler();
  const auto point = monitor_.after_step(state_.global_step, epoch, lr, meters_,
                                         scaler ? scaler->scale_tensor() : torch::Tensor(),
                                         !observers_.empty());
  if (!point) return;
  for (auto& observer : observers_) observer->on_step(*point);
}

void TrainingLoop::flush_step_point() {
  if (const auto point = monitor_.finish_point())
    for (auto& observer : observers_) observer->on_step(*point);
}

RunSummary run_training(const ExperimentConfig& given, const RunOptions& options) {
  if (options.launch) {
    set_log_rank(options.launch->rank);
    relay_rank_warnings(options.launch->local_rank == 0);
  }
  // train.batch_size: auto becomes the number found, which the run's
  // config.yaml keeps (a resume trains with it, never searches again).
  ExperimentConfig config = given;
  if (config.train.batch_size.automatic) {
    if (options.launch && options.launch->distributed())
      throw UsageError("train.batch_size: auto is for a run on one device, not one of " +
                           std::to_string(options.launch->world_size) + " ranks",
                       "find the batch with trainer bench --find-max-batch on one device and write the number");
    const torch::Device device = rank_device(config, options);
    configure_runtime(config, device);
    config.train.batch_size = {find_auto_batch_size(config, device), false};
  }
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
    // LibTorch's errors carry stack frames ("frame #0: <unknown function>"): run.json keeps the message.
    const auto* torch_error = dynamic_cast<const c10::Error*>(&e);
    if (loop)
      loop->record_end(static_cast<int>(error ? error->code() : ExitCode::kInternal),
                       torch_error ? torch_error->what_without_backtrace() : e.what());
    close_log_file();
    throw;
  }
}

CheckpointEvaluation evaluate_checkpoint(const ExperimentConfig& config, const std::string& checkpoint) {
  const torch::Device device = primary_device(config.devices.entries);
  configure_runtime(config, device);
  Experiment experiment = prepare_experiment(config, device);
  const TrainingState state = load_weights_to_use(checkpoint, experiment.model, config, device);
  auto single = make_single_process_communicator();
  Validation validation = validate_model(experiment.model, experiment.data.valid, config, device, *single);
  return {state.epoch, state.step_in_epoch, std::move(validation.metrics), std::move(validation.confusion),
          experiment.data.info.class_names};
}

}  // namespace trainer
