#pragma once
// TRAINER_DATA_DIR: one folder where a lab keeps its data sets, looked in
// after data.path and before each data set's default place. Its layout:
//   $TRAINER_DATA_DIR/reuters.npz or reuters21578/ (the .sgm files)
//   $TRAINER_DATA_DIR/fashion-mnist/, mnist/       (the four IDX files)
#include <string>

namespace trainer {

inline constexpr const char* kDataRootVariable = "TRAINER_DATA_DIR";

// $TRAINER_DATA_DIR/NAME, or "" when the variable is unset or empty.
std::string in_data_root(const std::string& name);

}  // namespace trainer
