#pragma once
// Checks that involve more than one field, or a field's meaning for the rest
// of the program (what is supported yet). Problems go to `context`.
#include "config/read_context.h"
#include "spec/experiment_config.h"

namespace trainer {

void validate_experiment(const ExperimentConfig& config, ReadContext& context);

}  // namespace trainer
