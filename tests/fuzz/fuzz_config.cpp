// The experiment file and `--set` overrides: the input's first line, when it
// starts with "--set ", is an override; the rest is the YAML file.
#include "config/config_loader.h"
#include "fuzz_input.h"

TRAINER_FUZZ_TARGET({
  std::vector<std::string> overrides;
  std::string yaml = input;
  if (yaml.rfind("--set ", 0) == 0) {
    const size_t end = yaml.find('\n');
    overrides.push_back(yaml.substr(6, end == std::string::npos ? std::string::npos : end - 6));
    yaml = end == std::string::npos ? std::string() : yaml.substr(end + 1);
  }
  trainer::parse_experiment(yaml, "fuzz.yaml", overrides);
})
