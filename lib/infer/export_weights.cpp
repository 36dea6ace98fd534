#include "infer/export_weights.h"

#include <filesystem>
#include <stdexcept>

#include "config/config_writer.h"
#include "data/dataset.h"
#include "runs/checkpoint.h"
#include "train/experiment_setup.h"
#include "formats/weights_file.h"
#include "runs/kept_run_file.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/output_guard.h"

namespace trainer {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "both formats store little-endian data, copied as is");

std::string dtype_name(torch::ScalarType type) {
  switch (type) {
    case torch::kFloat: return "F32";
    case torch::kDouble: return "F64";
    case torch::kHalf: return "F16";
    case torch::kBFloat16: return "BF16";
    case torch::kLong: return "I64";
    case torch::kInt: return "I32";
    case torch::kByte: return "U8";
    case torch::kBool: return "BOOL";
    default: throw IoError(std::string("cannot export a tensor of type ") + c10::toString(type));
  }
}

NamedArray to_array(const std::string& name, torch::Tensor tensor, WeightsFormat format) {
  tensor = tensor.detach().to(torch::kCPU).contiguous();
  // NumPy has no bfloat16: such tensors go to .npz as float32.
  if (format == WeightsFormat::kNpz && tensor.scalar_type() == torch::kBFloat16) tensor = tensor.to(torch::kFloat);
  NamedArray array;
  array.name = name;
  array.dtype = dtype_name(tensor.scalar_type());
  array.shape = tensor.sizes().vec();
  array.bytes.assign(static_cast<const char*>(tensor.data_ptr()), tensor.numel() * tensor.element_size());
  return array;
}

// The config beside an export starts with this line: what tells an earlier
// export's config, which a new export replaces, from a file of the user's
// that happens to have its name.
constexpr const char* kConfigMark = "# trainer export: the resolved config of ";

// Whether `head` starts a file of `format`: safetensors' 8-byte header
// length and its JSON's '{', or a zip archive's first record (an empty one's
// end record) for npz.
bool starts_weights(const std::string& head, WeightsFormat format) {
  if (format == WeightsFormat::kNpz) return head.rfind("PK\x03\x04", 0) == 0 || head.rfind("PK\x05\x06", 0) == 0;
  return head.size() >= 9 && head[8] == '{';
}

}  // namespace

WeightsFormat weights_format_for(const std::string& format_option, const std::string& out) {
  const std::string extension = std::filesystem::path(out).extension().string();
  const std::string named = extension == ".npz" ? "npz" : extension == ".safetensors" ? "safetensors" : "";
  if (format_option.empty()) return named == "npz" ? WeightsFormat::kNpz : WeightsFormat::kSafetensors;
  if (!named.empty() && named != format_option)
    throw UsageError("--format " + format_option + " and -o " + out + " disagree: the file would be named " + named +
                         " and hold " + format_option,
                     "leave --format out (the extension decides), or name the file " +
                         std::filesystem::path(out).replace_extension(format_option).string());
  return format_option == "npz" ? WeightsFormat::kNpz : WeightsFormat::kSafetensors;
}

ExportedWeights export_weights(const ExperimentConfig& config, const std::string& checkpoint,
                               const std::string& experiment_file, WeightsFormat format, const std::string& out) {
  ExportedWeights result;
  result.weights = out;
  result.config = (std::filesystem::path(out).parent_path() / std::filesystem::path(out).stem()).string() + ".config.yaml";
  // Both files are refused before either is written: no half export, and
  // neither replaces what it is made from.
  const std::vector<ReadFile> inputs = {{checkpoint, "the checkpoint"}, {experiment_file, "the experiment file"}};
  check_output_file("-o", result.weights, inputs);
  check_output_file("the config file beside -o,", result.config, inputs);
  // A file already at either name is replaced only when an export wrote it.
  check_replaces_own_output("-o", result.weights,
                            format == WeightsFormat::kNpz ? "an .npz file an export wrote" : "a safetensors file an export wrote",
                            9, [&](const std::string& head) { return starts_weights(head, format); });
  check_replaces_own_output("the config file beside -o,", result.config, "the config an export wrote",
                            std::char_traits<char>::length(kConfigMark),
                            [](const std::string& head) { return head == kConfigMark; });
  Model model = build_model_from_description(config, "export").model;
  load_weights_to_use(checkpoint, model, config, torch::kCPU);
  // The state dict's order and names: parameters, then buffers (batch norm's running statistics).
  std::vector<NamedArray> arrays;
  for (const auto& item : model.net->named_parameters(true)) arrays.push_back(to_array(item.key(), item.value(), format));
  for (const auto& item : model.net->named_buffers(true)) arrays.push_back(to_array(item.key(), item.value(), format));
  for (const auto& array : arrays) result.bytes += static_cast<int64_t>(array.bytes.size());
  result.tensors = static_cast<int64_t>(arrays.size());
  const std::string yaml = to_yaml(config);
  std::string bytes;
  try {
    bytes = format == WeightsFormat::kSafetensors
                ? safetensors_bytes(arrays, {{"format", "pt"}, {"trainer_experiment", config.experiment.name},
                                             {"trainer_config", yaml}})
                : npz_bytes(arrays);
  } catch (const std::length_error& e) {
    throw IoError(out + ": " + e.what());
  }
  const std::filesystem::path folder = std::filesystem::path(out).parent_path();
  std::error_code error;
  if (!folder.empty()) std::filesystem::create_directories(folder, error);
  if (error) throw IoError("cannot create the folder " + folder.string() + " for " + out + ": " + error.message());
  write_file_atomic(result.weights, bytes);
  write_file_atomic(result.config, kConfigMark + std::filesystem::path(out).filename().string() + " (from " +
                                       checkpoint + ")\n" + yaml);
  return result;
}

}  // namespace trainer
