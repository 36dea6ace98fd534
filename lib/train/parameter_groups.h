#pragma once
// optimizer.lr_scale: the model's trainable parameters grouped by the
// learning-rate factor of their layer.
#include <string>
#include <vector>

#include "models/model.h"
#include "optim/optimizer_factory.h"
#include "spec/experiment_config.h"

namespace trainer {

// One group per factor, in the order the model's parameters first take it
// (without rules: one group of every trainable parameter at 1). A layer
// takes the first rule whose pattern (* and ?) matches its summary name.
// Throws ConfigError naming a rule that matches no layer, listing the layers.
std::vector<ParameterGroup> lr_scale_groups(const Model& model, const LayerScales& scales);

// "x0.1 for 1,234 parameters, x1 for 5,678 parameters", for the log.
std::string describe_groups(const std::vector<ParameterGroup>& groups);

// The groups' factors, in order (TrainStep's, for set_learning_rate).
std::vector<double> scales_of(const std::vector<ParameterGroup>& groups);

}  // namespace trainer
