#include <algorithm>
#include <iostream>
#include <memory>

#include "commands.h"
#include "config/config_loader.h"
#include "config/config_reference.h"
#include "config/config_writer.h"
#include "util/error.h"

namespace trainer::app {

void add_config_command(CLI::App& app, Action& selected) {
  struct Args {
    ExperimentArgs experiment;
    bool reference = false;
    bool explain = false;
  };
  auto args = std::make_shared<Args>();
  auto* command = app.add_subcommand("config", "Check an experiment file and print it fully resolved (YAML)");
  args->experiment.add_to(*command, /*file_required=*/false);
  command->add_flag("--reference", args->reference, "Print the config reference (Markdown) instead");
  command->add_flag("--explain", args->explain,
                    "Print every resolved key with where its value came from: FILE:LINE:COLUMN (the file or one it "
                    "extends), --set, or default");
  command->callback([args, &selected] {
    selected = [args] {
      if (args->reference) {
        std::cout << config_reference_markdown();
        return;
      }
      if (args->experiment.file.empty()) throw UsageError("trainer config needs an experiment FILE (or --reference)");
      if (args->explain) {
        const auto rows = explain_experiment(args->experiment.file, args->experiment.overrides);
        size_t width = 0;
        // Aligned origins, except after the few long values (URLs) that would push them all right.
        for (const auto& row : rows) width = std::max(width, std::min<size_t>(row.key.size() + 2 + row.value.size(), 56));
        for (const auto& row : rows) {
          const std::string text = row.key + ": " + row.value;
          std::cout << text << std::string(width > text.size() ? width - text.size() + 2 : 2, ' ') << "# " << row.origin
                    << "\n";
        }
        return;
      }
      std::cout << to_yaml(load_experiment(args->experiment.file, args->experiment.overrides));
    };
  });
}

}  // namespace trainer::app
