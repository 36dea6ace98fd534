#pragma once
// docs/config-reference.md (`trainer config --reference`), generated from the
// declarations in experiment_config.h so that it cannot drift from them.
#include <string>

namespace trainer {

std::string config_reference_markdown();

}  // namespace trainer
