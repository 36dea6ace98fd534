#pragma once
// `trainer devices`' output: human-readable, and one JSON object for scripts.
#include <string>

#include "device/device_inventory.h"

namespace trainer {

std::string format_inventory_text(const DeviceInventory& inventory);
std::string format_inventory_json(const DeviceInventory& inventory);

}  // namespace trainer
