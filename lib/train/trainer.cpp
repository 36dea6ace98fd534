#include "train/trainer.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/config_loader.h"
#include "data/batch_loader.h"
#include "data/sampler.h"
#include "train/checkpoint.h"
#include "train/experiment_setup.h"
#include "train/loss.h"
#include "train/lr_schedule.h"
#include "train/metrics.h"
#include "train/optimizer_factory.h"
#include "train/progress.h"
#include "train/run_dir.h"
#include "train/validation.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/signals.h"
#include "util/stopwatch.h"
#include "util/text.h"
#include "util/torch_compat.h"

namespace trainer {
namespace {

class TrainingLoop {
 public:
  TrainingLoop(const ExperimentConfig& config, const RunOptions& options)
      : config_(config),
        options_(options),
        runtime_(configure_runtime(config)),
        experiment_(prepare_experiment(config)),
        optimizer_(make_optimizer(config.optimizer, experiment_.model.net->parameters())),
        meters_(config.loss, config.metrics, experiment_.model.final_softmax),
        progress_(config.log.progress, options.quiet) {
    const int64_t batches = (experiment_.data.train.size() + config.train.batch_size - 1) / config.train.batch_size;
    steps_per_epoch_ = config.train.steps_per_epoch > 0 ? std::min(batches, config.train.steps_per_epoch) : batches;
  }

  RunSummary run() {
    options_.resume.empty() ? start_new_run() : resume_run();
    log_header();
    RunSummary summary{run_.path, {}};
    for (int64_t epoch = state_.epoch + 1; epoch <= config_.train.epochs; ++epoch) summary.records.push_back(run_epoch(epoch));
    log().info("done: {} epochs; run directory {}", config_.train.epochs, run_.path);
    return summary;
  }

 private:
  void start_new_run() {
    run_ = create_run_dir(config_.log.dir, config_.experiment.name, config_.log.run_name);
    write_file_atomic(run_.config(), to_yaml(config_));
    add_log_file(run_.log());
  }

  void resume_run() {
    const ResumePoint point = find_resume_point(options_.resume);
    run_ = point.run;
    add_log_file(run_.log());
    std::ifstream saved(run_.config());
    std::stringstream saved_text;
    saved_text << saved.rdbuf();
    if (saved && saved_text.str() != to_yaml(config_))
      log().warn("the config differs from the run's {}; continuing with the one given", run_.config());
    state_ = load_checkpoint(point.checkpoint, *experiment_.model.net, optimizer_.get());
    truncate_metrics(run_, state_.epoch);
    log().info("resumed from {} (epoch {} done, step {} of the next)", point.checkpoint, state_.epoch,
               state_.step_in_epoch);
  }

  void log_header() const {
    int64_t parameters = 0;
    for (const auto& layer : experiment_.model.summary) parameters += layer.parameters;
    log().info("trainer {} on LibTorch {}: cpu, {} intra-op threads, BLAS {} ({})", TRAINER_VERSION,
               compat::torch_version(), runtime_.threads, runtime_.blas.name,
               runtime_.blas.threads_pinned ? std::to_string(config_.blas_threads) + " thread(s)" : "threads not pinned");
    log().info("model: {} layers, {} parameters; optimizer {}, lr {}", experiment_.model.summary.size(), parameters,
               to_string(config_.optimizer.name), *config_.optimizer.lr);
    log().info("batch {} per device, global {}; {} steps per epoch; {} epochs; run directory {}",
               config_.train.batch_size, config_.train.batch_size, steps_per_epoch_, config_.train.epochs, run_.path);
  }

  EpochRecord run_epoch(int64_t epoch) {
    Stopwatch clock;
    EpochRecord record;
    record.epoch = epoch;
    const double data_wait = train_steps(epoch, record);
    record.train_seconds = clock.seconds();
    record.train = meters_.results();
    if (!std::isfinite(record.train[0].value))
      throw DivergedError("the training loss became " + format_float9(record.train[0].value) + " in epoch " +
                              std::to_string(epoch),
                          "lower optimizer.lr, or set optimizer.clip_norm; the last good checkpoint is in " +
                              run_.checkpoints());
    const bool last = epoch == config_.train.epochs;
    if (last || epoch % config_.train.validate_every == 0)
      record.valid = validate_model(experiment_.model, experiment_.data.valid, config_);
    record.seconds = clock.seconds();
    record.samples_per_second = static_cast<double>(meters_.samples()) / record.train_seconds;
    record.data_wait_seconds = data_wait;

    emit_record(format_epoch_record(record, local_time_hms()));
    append_metrics(record);
    log().info("epoch {}: {:.2f} s ({:.2f} s training), {:.0f} samples/s, data wait {:.2f}% of training", epoch,
               record.seconds, record.train_seconds, record.samples_per_second, 100.0 * data_wait / record.train_seconds);
    if (last || epoch % config_.train.checkpoint_every == 0) save(epoch, 0);
    return record;
  }

  // Returns the seconds spent waiting for data.
  double train_steps(int64_t epoch, EpochRecord& record) {
    LoaderOptions options;
    options.batch_size = config_.train.batch_size;
    options.workers = config_.data.workers;
    options.prefetch = config_.data.prefetch;
    options.max_batches = steps_per_epoch_;
    std::vector<int64_t> order =
        epoch_order(experiment_.data.train.size(), config_.experiment.seed, epoch, config_.data.shuffle);
    // An interrupted epoch resumes after the steps it had done.
    int64_t step = 0;
    meters_.reset();
    if (state_.step_in_epoch > 0) {
      step = state_.step_in_epoch;
      order.erase(order.begin(), order.begin() + std::min<int64_t>(order.size(), step * config_.train.batch_size));
      options.max_batches -= step;
      meters_.load_state(state_.epoch_metric_sums);
      state_.step_in_epoch = 0;
    }
    BatchLoader loader(experiment_.data.train, std::move(order), options);
    auto& model = experiment_.model;
    progress_.start(epoch, config_.train.epochs, steps_per_epoch_);
    while (auto batch = loader.next()) {
      record.lr = scheduled_lr(config_.optimizer.schedule, *config_.optimizer.lr,
                               static_cast<double>(state_.global_step) / static_cast<double>(steps_per_epoch_),
                               static_cast<double>(config_.train.epochs));
      set_learning_rate(*optimizer_, record.lr);
      // Dropping the gradients (instead of zeroing them) lets backward write
      // them directly: no memset, no accumulate.
      model.net->zero_grad(/*set_to_none=*/true);
      const auto output = model.forward(batch->inputs);
      const auto loss = compute_loss(config_.loss, output, batch->labels, model.final_softmax);
      loss.backward();
      if (config_.optimizer.clip_norm > 0)
        torch::nn::utils::clip_grad_norm_(model.net->parameters(), config_.optimizer.clip_norm);
      optimizer_->step();
      meters_.add(loss, output, batch->labels);
      ++step;
      ++state_.global_step;
      record.steps = step;
      progress_.update(step, meters_.samples(), [&] { return meters_.running_loss(); });
      if (interrupt_requested()) stop_for_interrupt(epoch, step);
    }
    progress_.finish();
    return loader.wait_seconds();
  }

  [[noreturn]] void stop_for_interrupt(int64_t epoch, int64_t step) {
    progress_.finish();
    const bool epoch_done = step >= steps_per_epoch_;
    const std::string path = save(epoch_done ? epoch : epoch - 1, epoch_done ? 0 : step);
    throw InterruptedError("interrupted in epoch " + std::to_string(epoch) + " after step " + std::to_string(step) +
                           "; checkpoint saved to " + path + "\nresume with: trainer run " + options_.config_path +
                           " --resume " + run_.path);
  }

  std::string save(int64_t epochs_done, int64_t step_in_epoch) {
    Stopwatch clock;
    TrainingState state = state_;
    state.epoch = epochs_done;
    state.step_in_epoch = step_in_epoch;
    if (step_in_epoch > 0) state.epoch_metric_sums = meters_.state();
    const std::string path = run_.checkpoint_for(step_in_epoch > 0 ? epochs_done + 1 : epochs_done, step_in_epoch);
    save_checkpoint(path, *experiment_.model.net, *optimizer_, state);
    prune_checkpoints(run_, config_.train.keep_checkpoints);
    log().info("checkpoint {} ({:.1f} KiB, {:.2f} s)", path,
               static_cast<double>(std::filesystem::file_size(path)) / 1024.0, clock.seconds());
    return path;
  }

  void append_metrics(const EpochRecord& record) {
    std::ofstream out(run_.metrics(), std::ios::app);
    out << format_metrics_json(record);
    if (!out) throw IoError("cannot append to " + run_.metrics());
  }

  const ExperimentConfig& config_;
  RunOptions options_;
  RuntimeInfo runtime_;
  Experiment experiment_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  MetricAccumulator meters_;
  ProgressBar progress_;
  RunDir run_;
  TrainingState state_;
  int64_t steps_per_epoch_ = 0;
};

}  // namespace

RunSummary run_training(const ExperimentConfig& config, const RunOptions& options) {
  TrainingLoop loop(config, options);
  RunSummary summary = loop.run();
  close_log_file();
  return summary;
}

std::vector<MetricValue> evaluate_checkpoint(const ExperimentConfig& config, const std::string& checkpoint) {
  configure_runtime(config);
  Experiment experiment = prepare_experiment(config);
  load_checkpoint(checkpoint, *experiment.model.net, nullptr);
  return validate_model(experiment.model, experiment.data.valid, config);
}

}  // namespace trainer
