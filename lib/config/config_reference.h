#pragma once
// docs/config-reference.md (`trainer config --reference`), generated from the
// declarations in experiment_config.h so that it cannot drift from them.
#include <string>
#include <vector>

namespace trainer {

std::string config_reference_markdown();

// Every key of the experiment file, dotted ("optimizer.lr"), in reference
// order; the layers' keys are not among them (they sit under list indices).
std::vector<std::string> config_keys();

// Whether the value of `key` may itself be a list (metrics, devices,
// data.synthetic.shape, ...); false for keys it does not know.
bool config_key_takes_list(const std::string& key);

}  // namespace trainer
