#include "commands.h"
#include "train/experiment_setup.h"

namespace trainer::app {

std::string version_text() { return trainer::version_text(); }

}  // namespace trainer::app
