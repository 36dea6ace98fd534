#include "train/initial_weights.h"

#include <cstring>
#include <filesystem>
#include <map>
#include <regex>

#include "formats/file_bytes.h"
#include "formats/weights_file.h"
#include "runs/checkpoint_seal.h"
#include "runs/run_dir.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/text.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;
using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

torch::ScalarType scalar_type_of(const std::string& dtype) {
  static const std::map<std::string, torch::ScalarType> types{
      {"F64", torch::kFloat64}, {"F32", torch::kFloat32}, {"F16", torch::kFloat16}, {"BF16", torch::kBFloat16},
      {"I64", torch::kInt64},   {"I32", torch::kInt32},   {"I16", torch::kInt16},   {"I8", torch::kInt8},
      {"U8", torch::kUInt8},    {"BOOL", torch::kBool}};
  return types.at(dtype);
}

NamedTensors tensors_of(const std::vector<NamedArray>& arrays) {
  NamedTensors out;
  for (const NamedArray& array : arrays) {
    // The bytes are little-endian, as every host trainer runs on.
    torch::Tensor tensor = torch::empty(array.shape, torch::TensorOptions().dtype(scalar_type_of(array.dtype)));
    std::memcpy(tensor.data_ptr(), array.bytes.data(), array.bytes.size());
    out.emplace_back(array.name, tensor);
  }
  return out;
}

// Module::save's archive: a module's own tensors, and one archive per child.
void collect(torch::serialize::InputArchive& archive, const std::string& prefix, NamedTensors& out) {
  for (const std::string& key : archive.keys()) {
    torch::Tensor tensor;
    if (archive.try_read(key, tensor)) {
      out.emplace_back(prefix + key, tensor);
      continue;
    }
    torch::serialize::InputArchive child;
    if (archive.try_read(key, child)) collect(child, prefix + key + ".", out);
  }
}

NamedTensors checkpoint_tensors(const std::string& path) {
  std::string bytes;
  try {
    bytes = read_file_bytes(path);
  } catch (const DataError& e) {
    throw IoError(std::string("model.init_from: ") + e.what());
  }
  verify_checkpoint(bytes, path);
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(bytes.data(), bytes.size(), torch::kCPU);
    torch::serialize::InputArchive model;
    if (!archive.try_read("model", model)) throw IoError(path + ": holds no model: not a trainer checkpoint");
    NamedTensors out;
    collect(model, "", out);
    return out;
  } catch (const c10::Error& e) {
    throw IoError("model.init_from: cannot read " + path + ": " + e.what_without_backtrace(),
                  "give a trainer checkpoint (.pt), a run directory, or a .safetensors or .npz file");
  }
}

}  // namespace

int64_t InitialWeights::count(const std::string& outcome) const {
  int64_t n = 0;
  for (const Row& row : rows) n += row.outcome == outcome;
  return n;
}

std::string InitialWeights::table() const {
  std::string out = "model.init_from " + source + ": " + std::to_string(count("loaded")) + " of the model's " +
                    std::to_string(rows.size()) + " tensors loaded, " + std::to_string(count("skipped")) +
                    " skipped, " + std::to_string(count("left")) + " left at their initialiser; " +
                    std::to_string(unused.size()) + " of the file's tensors unused";
  size_t width = 0;
  for (const Row& row : rows) width = std::max(width, row.name.size());
  for (const Row& row : rows)
    out += "\n  " + row.name + std::string(width + 2 - row.name.size(), ' ') + row.outcome +
           (row.why.empty() ? "" : "  " + row.why);
  for (const std::string& name : unused) out += "\n  (file) " + name + "  unused";
  return out;
}

std::vector<std::pair<std::string, torch::Tensor>> read_weights(const std::string& path, std::string& source) {
  source = path;
  if (fs::is_directory(path)) {
    // A run: its best epoch's weights, else its newest.
    const RunDir run{path};
    const std::vector<std::string> checkpoints = list_checkpoints(run);
    if (fs::exists(run.best_checkpoint())) source = run.best_checkpoint();
    else if (!checkpoints.empty()) source = checkpoints.back();
    else throw IoError("model.init_from: " + path + " is a directory without checkpoints/",
                       "give a run directory that has saved a checkpoint, or a checkpoint or weights file");
    return checkpoint_tensors(source);
  }
  if (!fs::exists(path))
    throw IoError("model.init_from: " + path + " does not exist",
                  "give a trainer checkpoint (.pt), a run directory, or a .safetensors or .npz file");
  if (ends_with(path, ".safetensors") || ends_with(path, ".npz")) {
    try {
      const std::string bytes = read_file_bytes(path);
      return tensors_of(ends_with(path, ".npz") ? read_npz(bytes, path) : read_safetensors(bytes, path));
    } catch (const DataError& e) {
      throw IoError(std::string("model.init_from: ") + e.what(), e.hint());
    }
  }
  return checkpoint_tensors(path);
}

InitialWeights load_initial_weights(const ModelConfig& config, Model& model) {
  InitialWeights result;
  NamedTensors file = read_weights(config.init_from, result.source);
  // The file's names after model.init_rename, each rule on the last's result.
  std::map<std::string, size_t> by_name;
  std::vector<std::string> original(file.size());
  for (size_t i = 0; i < file.size(); ++i) {
    original[i] = file[i].first;
    for (const auto& [pattern, replacement] : config.init_rename.rules)
      file[i].first = std::regex_replace(file[i].first, std::regex(pattern), replacement);
    if (!by_name.emplace(file[i].first, i).second)
      throw ConfigError({"model.init_rename: two of " + result.source + "'s tensors are both named '" +
                         file[i].first + "' (" + original[by_name[file[i].first]] + " and " + original[i] + ")"});
  }
  // The model's tensors by their layers' names, unless two share one.
  NamedTensors mine;
  for (const auto& item : model.net->named_parameters(true)) mine.emplace_back(item.key(), item.value());
  for (const auto& item : model.net->named_buffers(true)) mine.emplace_back(item.key(), item.value());
  std::map<std::string, int> layer_names;
  for (const auto& [name, tensor] : mine) ++layer_names[model.layer_name_of(name)];
  std::vector<bool> used(file.size(), false);
  torch::NoGradGuard no_grad;
  for (auto& [name, tensor] : mine) {
    const std::string layer_name = model.layer_name_of(name);
    const std::string shown = layer_names[layer_name] == 1 ? layer_name : name;
    auto found = by_name.find(shown);
    if (found == by_name.end()) found = by_name.find(name);
    if (found == by_name.end()) {
      result.rows.push_back({shown, "left", "not in the file"});
      continue;
    }
    const torch::Tensor& source = file[found->second].second;
    used[found->second] = true;
    if (source.sizes() != tensor.sizes()) {
      result.rows.push_back({shown, "skipped",
                             "shape " + c10::str(source.sizes()) + " in the file, " +
                                 c10::str(tensor.sizes()) + " here"});
      continue;
    }
    tensor.copy_(source);  // to the tensor's device, dtype and memory layout
    const std::string& from = original[found->second];
    result.rows.push_back({shown, "loaded", from == shown ? "" : "from " + from});
  }
  for (size_t i = 0; i < file.size(); ++i)
    if (!used[i]) result.unused.push_back(file[i].first);
  log().info("{}", result.table());
  if (config.init_strict && (result.count("loaded") != static_cast<int64_t>(result.rows.size()) || !result.unused.empty())) {
    std::vector<std::string> problems;
    for (const auto& row : result.rows)
      if (row.outcome != "loaded") problems.push_back("model.init_from: " + row.name + " " + row.outcome + ": " + row.why);
    for (const auto& name : result.unused)
      problems.push_back("model.init_from: the file's " + name + " fits no tensor of the model");
    problems.push_back("model.init_strict is true: every tensor must load (init_rename maps names; false loads what fits)");
    throw ConfigError(problems);
  }
  return result;
}

}  // namespace trainer
