#include "infer/predict.h"

#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "data/dataset.h"
#include "formats/file_bytes.h"
#include "images/image_codec.h"
#include "data/image_pairs_index.h"
#include "images/image_rows.h"
#include "data/image_tensor.h"
#include "images/png_row_writer.h"
#include "device/device_select.h"
#include "device/host_memory.h"
#include "device/memory_budget.h"
#include "device/runtime.h"
#include "runs/checkpoint.h"
#include "train/experiment_setup.h"
#include "infer/forward_graphs.h"
#include "infer/predict_memory.h"
#include "infer/predict_outputs.h"
#include "infer/predict_rows.h"
#include "infer/tiled_inference.h"
#include "infer/top_classes.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/json.h"
#include "util/logging.h"
#include "util/read_file.h"
#include "util/stopwatch.h"
#include "util/text.h"
#include "util/torch_compat.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

struct InputFile {
  std::string path;
  std::string relative;  // below the input folder (the file name for a single file)
};

std::vector<InputFile> input_files(const std::string& input) {
  std::error_code error;
  if (fs::is_regular_file(input, error)) return {{input, fs::path(input).filename().string()}};
  if (!fs::is_directory(input, error))
    throw DataError(printable(input) + " " + regular_file_problem(input), "--input names an image file or a folder of them");
  std::vector<InputFile> files;
  for (const std::string& path : index_images_below(input))
    files.push_back({path, fs::path(path).lexically_relative(input).string()});
  return files;
}

// [1, C, H, W] float on `device`, scaled as the model was trained. A
// classifier's inputs are brought to the size it was built for (its data
// set's images.size, or its fixed size: Fashion-MNIST's 28 x 28); an image
// model's keep their full size.
torch::Tensor model_input(const Image& image, const ExperimentConfig& config, const DataInfo& info, bool resize,
                          const torch::Device& device) {
  ImagesConfig images = config.data.images;
  images.size.clear();
  if (resize) images.size = {info.input_shape.at(1), info.input_shape.at(2)};
  return image_tensor(image, images).unsqueeze(0).to(device);
}

// The host memory one image may take, and what bounds it, for messages:
// memory_limit on a CPU (less what LibTorch holds: the model), and what the
// system has left.
std::pair<std::optional<int64_t>, std::string> image_memory_budget(const ExperimentConfig& config,
                                                                   const torch::Device& device) {
  const std::optional<int64_t> available = available_host_memory();
  int64_t left = 0;
  if (device.is_cpu() && config.memory_limit.mib > 0)
    left = std::max<int64_t>(1, config.memory_limit.mib * 1024 * 1024 - cpu_memory_usage().current_bytes);
  const bool limit_decides = left > 0 && (!available || left <= *available);
  return {predict_memory_budget(left, available), limit_decides ? "left of memory_limit" : "this host has available"};
}

// Out of memory on one image: which image, how large, and what bounds it
// (not train.batch_size: predict takes one image at a time).
OutOfMemoryError image_out_of_memory(const std::string& path, const ImageShape& image, const std::string& what,
                                     bool images_out) {
  return OutOfMemoryError(printable(path) + " (" + std::to_string(image.width) + " x " + std::to_string(image.height) +
                              " pixels): out of memory: " + what.substr(0, what.find('\n')),
                          images_out ? "predict it in tiles (--tile 512, or smaller), or set memory_limit higher"
                                     : "set memory_limit higher, or shrink the image");
}

}  // namespace

int64_t run_predict(const ExperimentConfig& config, const PredictOptions& options) {
  if (config.data.dataset == DatasetKind::kTabular || config.data.dataset == DatasetKind::kReuters)
    return run_predict_rows(config, options);
  const torch::Device device = primary_device(config.devices.entries);
  configure_runtime(config, device);
  DescribedModel described = build_model_from_description(config, "predict");
  const DataInfo& info = described.info;
  Model& model = described.model;
  load_weights_to_use(options.checkpoint, model, config, device);
  place_model(model, device, config.gpu);
  model.net->eval();
  torch::NoGradGuard no_grad;
  const bool images_out = has_image_targets(config.data);
  if (images_out && options.output.empty())
    throw ConfigError({"--output: an image-to-image model writes images; name the folder for them"});
  if (info.input_shape.size() != 3 || info.token_inputs)
    throw ConfigError({"data.dataset: predict reads image files, and this model takes " +
                       std::string(info.token_inputs ? "token sequences" : "rows of numbers") + ", not images"});
  // The channels the model was built for (grey Fashion-MNIST: 1).
  const int64_t channels = info.input_shape[0];
  // Every output is decided and checked before the first is written.
  const std::vector<InputFile> files = input_files(options.input);
  std::error_code error;
  check_output_folder(options.input, options.output, fs::is_directory(options.input, error));
  std::vector<std::string> outputs;
  if (images_out) {
    std::vector<std::string> relatives;
    for (const InputFile& file : files) relatives.push_back(file.relative);
    for (const std::string& name : image_output_names(relatives))
      outputs.push_back((fs::path(options.output) / name).string());
  } else if (!options.output.empty()) {
    outputs.push_back((fs::path(options.output) / "predictions.jsonl").string());
  }
  check_no_existing_outputs(outputs, options.overwrite,
                            {{options.input, "the input"}, {options.checkpoint, "the checkpoint"}});
  const auto [budget, budget_source] = image_memory_budget(config, device);
  const std::string refusal = forward_graphs_refusal(config, model, device);
  if (device.is_cuda() && !refusal.empty()) log().info("cuda_graph: predict runs eagerly ({})", refusal);
  ForwardGraphs forward([&](const torch::Tensor& x) { return model.forward(x); }, refusal.empty());
  const ImageModel apply = [&](const torch::Tensor& x) { return forward(x); };
  const auto to_model = [&](const Image& pixels) { return model_input(pixels, config, info, !images_out, device); };
  Stopwatch clock;
  std::string lines;
  int64_t done = 0, skipped = 0;
  for (size_t index = 0; index < files.size(); ++index) {
    const InputFile& file = files[index];
    ImageShape shape;
    try {
      // The header first: an image past the memory budget is refused
      // before its pixels are decoded. With tiles, its rows are decoded a
      // band at a time, so a damaged file can be found part way; its output
      // is then never written (outputs are written whole or not at all).
      ImageRowReader reader(read_file_bytes(file.path), file.path, channels);
      const ImageShape header{reader.width(), reader.height(), reader.channels()};
      check_image_fits(printable(file.path), header, images_out, options.tiles, budget, budget_source);
      shape = header;
      if (images_out) {
        const fs::path target = outputs[index];
        std::error_code ignored;  // a folder that cannot be made fails the write, which names it
        fs::create_directories(target.parent_path(), ignored);
        write_atomic_with(target.string(), [&](const std::string& tmp) {
          std::unique_ptr<PngRowWriter> png;
          infer_tiled_rows(apply, reader, options.tiles, to_model, [&](const torch::Tensor& band) {
            const Image rows = image_from_tensor(band, config.data.images);
            if (!png) png = std::make_unique<PngRowWriter>(tmp, target.string(), shape.width, shape.height, rows.channels);
            png->write(rows);
          });
          png->finish();
        });
      } else {
        const torch::Tensor output = forward(to_model(reader.next_rows(shape.height)));
        nlohmann::ordered_json line;
        line["file"] = file.path;
        line["top"] = top_classes(class_probabilities(output, model, config)[0], info, options.top_k);
        lines += json_line(line);
      }
    } catch (const DataError& e) {
      if (config.data.on_bad_file == BadFilePolicy::kError)
        throw DataError(e.what(), "remove or replace the file, or set data.on_bad_file: skip");
      log().warn("skipping {}", e.what());
      ++skipped;
      continue;
    } catch (const OutOfMemoryError& e) {
      if (shape.width == 0) throw;  // refused from its header: the message names the image already
      throw image_out_of_memory(file.path, shape, e.what(), images_out);
    } catch (const c10::OutOfMemoryError& e) {
      throw image_out_of_memory(file.path, shape, e.what_without_backtrace(), images_out);
    } catch (const c10::Error& e) {
      if (!compat::is_cpu_allocation_failure(e)) throw;
      throw image_out_of_memory(file.path, shape, e.what_without_backtrace(), images_out);
    } catch (const std::bad_alloc&) {
      throw image_out_of_memory(file.path, shape, "the system refused an allocation", images_out);
    }
    ++done;
  }
  check_something_predicted(options.input, done, skipped, "file");
  if (!images_out) {
    if (options.output.empty()) {
      std::fwrite(lines.data(), 1, lines.size(), stdout);
    } else {
      std::error_code ignored;
      fs::create_directories(options.output, ignored);
      write_file_atomic(outputs.front(), lines);
    }
  }
  if (const std::string graphs = forward.summary(); !graphs.empty()) log().info("{}", graphs);
  log().info("predicted {} file{} in {:.1f} s{}{}", done, done == 1 ? "" : "s", clock.seconds(),
             skipped > 0 ? ", " + std::to_string(skipped) + " skipped" : "",
             options.output.empty() ? "" : "; output in " + options.output);
  return done;
}

}  // namespace trainer
