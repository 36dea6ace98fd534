#include "infer/predict_rows.h"

#include <cstdio>
#include <filesystem>

#include "data/dataset.h"
#include "device/device_select.h"
#include "device/runtime.h"
#include "infer/forward_graphs.h"
#include "infer/predict_outputs.h"
#include "infer/sequence_inputs.h"
#include "infer/tabular_inputs.h"
#include "infer/top_classes.h"
#include "runs/input_encoding_file.h"
#include "train/experiment_setup.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/json.h"
#include "util/logging.h"
#include "util/stopwatch.h"
#include "util/text.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

// The run's record, or what its training data says when it has none.
RecordedInputs recorded_inputs(const ExperimentConfig& config, const std::string& run_dir) {
  if (!run_dir.empty())
    if (std::optional<RecordedInputs> recorded = read_recorded_inputs(run_dir)) return std::move(*recorded);
  log().warn("{}: no inputs.json, which says how the run encoded its {}; reading the training data ({}) to find out: "
             "it must be the data the checkpoint was trained on",
             run_dir.empty() ? std::string("the checkpoint is outside a run directory") : run_dir,
             config.data.dataset == DatasetKind::kTabular ? "rows (their columns and statistics)"
                                                          : "texts (their vocabulary)",
             config.data.path.empty() ? std::string("the data set's usual place") : config.data.path);
  DataSplits data = load_dataset(config.data, config.experiment.seed);
  return {std::move(data.info), std::move(data.encoding)};
}

RowInputs read_inputs(const std::string& input, const ExperimentConfig& config, const RecordedInputs& recorded) {
  if (const auto& tabular = recorded.encoding.tabular) return read_tabular_inputs(input, config.data, recorded.info, *tabular);
  if (const auto& sequences = recorded.encoding.sequences)
    return read_sequence_inputs(input, config.data, recorded.info, *sequences);
  throw DataError("the run's inputs.json describes neither rows nor sequences");
}

nlohmann::ordered_json values_of(const torch::Tensor& row) {
  nlohmann::ordered_json values = nlohmann::ordered_json::array();
  const torch::Tensor exact = row.to(torch::kCPU, torch::kFloat32).contiguous().reshape({-1});
  for (int64_t i = 0; i < exact.numel(); ++i) values.push_back(json_number(exact.data_ptr<float>()[i]));
  return values;
}

}  // namespace

int64_t run_predict_rows(const ExperimentConfig& config, const PredictOptions& options) {
  const torch::Device device = primary_device(config.devices.entries);
  configure_runtime(config, device);
  // Every output is decided and checked before anything is read.
  std::error_code error;
  const bool input_is_folder = fs::is_directory(options.input, error);
  std::vector<std::string> outputs;
  if (!options.output.empty()) {
    check_output_folder(options.input, options.output, input_is_folder);
    outputs.push_back((fs::path(options.output) / "predictions.jsonl").string());
    check_no_existing_outputs(outputs, options.overwrite,
                            {{options.input, "the input"}, {options.checkpoint, "the checkpoint"}});
  }
  const RecordedInputs recorded = recorded_inputs(config, options.run_dir);
  const DataInfo& info = recorded.info;
  Model model = build_seeded_model(config, info);
  load_weights_to_use(options.checkpoint, model, config, device);
  place_model(model, device, config.gpu);
  model.net->eval();
  torch::NoGradGuard no_grad;
  const std::string refusal = forward_graphs_refusal(config, model, device);
  if (device.is_cuda() && !refusal.empty()) log().info("cuda_graph: predict runs eagerly ({})", refusal);
  ForwardGraphs forward([&](const torch::Tensor& x) { return model.forward(x); }, refusal.empty());

  Stopwatch clock;
  const RowInputs rows = read_inputs(options.input, config, recorded);
  const int64_t count = static_cast<int64_t>(rows.places.size());
  if (count == 0 && rows.skipped == 0) throw DataError(printable(options.input) + ": no rows to predict");
  check_something_predicted(options.input, count, rows.skipped, info.token_inputs ? "input" : "row");
  const bool classifier = info.target_shape.empty() && info.classes > 0;
  const int64_t batch = std::max<int64_t>(1, config.train.batch_size.value);
  std::string lines;
  for (int64_t first = 0; first < count; first += batch) {
    const int64_t last = std::min(count, first + batch);
    const torch::Tensor output = forward(rows.inputs.slice(0, first, last).to(device));
    const torch::Tensor answers =
        (classifier ? class_probabilities(output, model, config) : output).to(torch::kCPU, torch::kFloat32);
    for (int64_t r = first; r < last; ++r) {
      nlohmann::ordered_json line = rows.places[static_cast<size_t>(r)];
      if (classifier)
        line["top"] = top_classes(answers[r - first], info, options.top_k);
      else
        line["prediction"] = values_of(answers[r - first]);
      lines += json_line(line);
    }
  }
  if (options.output.empty()) {
    std::fwrite(lines.data(), 1, lines.size(), stdout);
  } else {
    std::error_code ignored;  // a folder that cannot be made fails the write, which names it
    fs::create_directories(options.output, ignored);
    write_file_atomic(outputs.front(), lines);
  }
  if (const std::string graphs = forward.summary(); !graphs.empty()) log().info("{}", graphs);
  log().info("predicted {} in {:.1f} s{}{}", count_of(count, info.token_inputs ? "sequence" : "row"), clock.seconds(),
             rows.skipped > 0 ? ", " + std::to_string(rows.skipped) + " skipped" : "",
             options.output.empty() ? "" : "; output in " + options.output);
  return count;
}

}  // namespace trainer
