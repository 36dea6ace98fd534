#include <cstdio>
#include <memory>

#include "commands.h"
#include "device/inventory_report.h"

namespace trainer::app {

void add_devices_command(CLI::App& app, Action& selected) {
  auto json = std::make_shared<bool>(false);
  auto* command = app.add_subcommand("devices", "List the CPU, the GPUs and what this LibTorch build supports");
  command->add_flag("--json", *json, "One JSON object instead of text");
  command->callback([json, &selected] {
    selected = [json] {
      const DeviceInventory inventory = take_inventory();
      const std::string text = *json ? format_inventory_json(inventory) : format_inventory_text(inventory);
      std::fwrite(text.data(), 1, text.size(), stdout);
    };
  });
}

}  // namespace trainer::app
