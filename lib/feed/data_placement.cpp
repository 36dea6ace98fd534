#include "feed/data_placement.h"

#include "util/text.h"

namespace trainer {

int64_t held_bytes(const TensorDataset& data) {
  if (data.source || !data.inputs.defined()) return 0;
  return static_cast<int64_t>(data.inputs.nbytes() + data.labels.nbytes());
}

std::string place_data(DataSplits& data, DataPlacement wanted, const torch::Device& device, int64_t budget_bytes) {
  // A CPU reads the host's memory: there is nowhere to move the data to. An
  // explicit `true` is answered, so that a user who asked for it is not left
  // believing it took effect; auto and false say nothing.
  if (!device.is_cuda())
    return wanted == DataPlacement::kDevice
               ? "data: kept in host memory, which " + device.str() +
                     " reads directly (data.on_device: true applies to GPU runs)"
               : "";
  const std::string where = "gpu:" + std::to_string(device.index());
  if (data.train.source || data.valid.source)
    return wanted == DataPlacement::kDevice
               ? "data.on_device: true, but this data set makes its samples as batches are assembled: they are "
                 "copied to " + where + " one batch ahead of each step"
               : "data: batches assembled in host memory, copied to " + where + " one batch ahead of each step";
  const int64_t bytes = held_bytes(data.train) + held_bytes(data.valid);
  const std::string size = format_mib(bytes);
  if (wanted == DataPlacement::kHost)
    return "data: " + size + " kept in host memory (data.on_device: false), each batch copied to " + where +
           " ahead of its step";
  const bool fits = budget_bytes > 0 && bytes <= budget_bytes / 4;
  if (wanted == DataPlacement::kAuto && !fits)
    return "data: " + size + " kept in host memory, each batch copied to " + where + " ahead of its step (" +
           "data.on_device auto: " + (budget_bytes > 0 ? "more than a quarter of the " + format_mib(budget_bytes) +
                                                             " budget"
                                                       : "the device's memory is not known") + ")";
  for (TensorDataset* split : {&data.train, &data.valid}) {
    if (!split->inputs.defined()) continue;
    split->inputs = split->inputs.to(device);
    split->labels = split->labels.to(device);
  }
  return "data: training and validation sets held on " + where + " (" + size + "), batches gathered there (" +
         (wanted == DataPlacement::kDevice ? std::string("data.on_device: true")
                                           : "data.on_device auto: at most a quarter of the " +
                                                 format_mib(budget_bytes) + " budget") + ")";
}

}  // namespace trainer
