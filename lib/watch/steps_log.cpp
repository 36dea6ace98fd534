#include "watch/steps_log.h"

#include <nlohmann/json.hpp>

#include "runs/run_dir.h"
#include "util/atomic_file.h"
#include "util/json.h"

namespace trainer {

void StepsLog::on_start(int64_t global_step, const std::string& /*config_yaml*/) {
  truncate_jsonl(path_, "step", global_step);
}

void StepsLog::on_step(const StepPoint& point) {
  nlohmann::ordered_json json;
  json["step"] = point.step;
  json["epoch"] = point.epoch;
  json["loss"] = json_number(point.loss);
  json["lr"] = json_number(point.lr);
  json["samples_per_second"] = json_number(point.samples_per_second);
  if (point.loss_scale > 0) json["loss_scale"] = json_number(point.loss_scale);
  append_to_file(path_, json_line(json));
}

}  // namespace trainer
