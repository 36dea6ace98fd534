#include "util/text.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iterator>

namespace trainer {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string nearest_word(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& candidate : candidates) {
    const size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string format_float9(float value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.9g", static_cast<double>(value));
  return buffer;
}

namespace {
std::string format_now(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, format, &local);
  return buffer;
}
}  // namespace

std::string local_time_hms() { return format_now("%H:%M:%S"); }
std::string local_timestamp_compact() { return format_now("%Y%m%d-%H%M%S"); }

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
  return out;
}

std::string format_text_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i)
      out += i + 1 < row.size() ? row[i] + std::string(widths[i] - row[i].size() + 2, ' ') : row[i];
    out += "\n";
  }
  return out;
}

}  // namespace trainer

namespace trainer {

std::string format_count_si(double count) {
  static const char* const kPrefixes[] = {"", " K", " M", " G", " T", " P"};
  size_t prefix = 0;
  // Three significant digits: 999.5 K shows as "1.00 M", not "1000 K".
  while (std::abs(count) >= 999.5 && prefix + 1 < std::size(kPrefixes)) count /= 1000.0, ++prefix;
  char text[32];
  const double magnitude = std::abs(count);
  const int decimals = prefix == 0 ? 0 : magnitude < 9.995 ? 2 : magnitude < 99.95 ? 1 : 0;
  std::snprintf(text, sizeof text, "%.*f%s", decimals, count, kPrefixes[prefix]);
  return text;
}

std::string format_mib(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

std::string count_of(int64_t count, const std::string& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

std::string format_time_taken(double seconds) {
  const auto total = static_cast<long long>(seconds + 0.5);
  char text[40];
  if (total < 60) std::snprintf(text, sizeof text, "%llds", total);
  else if (total < 3600) std::snprintf(text, sizeof text, "%lldm%02llds", total / 60, total % 60);
  else std::snprintf(text, sizeof text, "%lldh%02lldm", total / 3600, total % 3600 / 60);
  return text;
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? name : "";
}

std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      out += c;
      continue;
    }
    switch (c) {
      case '\0': out += "\\0"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", byte);
        out += hex;
      }
    }
  }
  return out;
}

std::string excerpt(const std::string& text, size_t max_chars) {
  if (text.size() <= max_chars) return printable(text);
  return printable(text.substr(0, max_chars)) + "... (" + std::to_string(text.size()) + " bytes)";
}

std::string listed_names(const std::vector<std::string>& names, size_t max_chars) {
  return excerpt(join(names, ", "), max_chars);
}

}  // namespace trainer
