#pragma once
// Numbers in CSV fields, as tables of features hold them: training reads a
// table's rows with these, and `trainer predict` new rows, so both accept
// and refuse the same fields. Torch-free.
#include <optional>
#include <string>

namespace trainer {

// Finite and within float32's range.
bool fits_float32(double value);

// A whole field (spaces and tabs around it allowed) as a finite number that
// fits a float32, the tensors' type; nothing otherwise.
std::optional<double> float32_field(const std::string& field);

// Why float32_field refused `field`, for messages: "not a number", "not a
// finite number" or "beyond the float32 range (+-3.4e38)".
std::string why_not_float32(const std::string& field);

}  // namespace trainer
