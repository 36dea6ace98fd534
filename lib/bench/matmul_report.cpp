#include "bench/matmul_report.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/json.h"

namespace trainer {
namespace {

std::string printf_string(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string printf_string(const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return buffer;
}

}  // namespace

MatmulShape parse_matmul_shape(const std::string& text) {
  int64_t dims[3];
  size_t start = 0;
  for (int i = 0; i < 3; ++i) {
    const size_t end = i < 2 ? text.find('x', start) : text.size();
    const std::string part = end == std::string::npos ? "" : text.substr(start, end - start);
    char* stop = nullptr;
    dims[i] = part.empty() ? 0 : std::strtoll(part.c_str(), &stop, 10);
    if (part.empty() || *stop != '\0' || dims[i] < 1 || (i == 2 && text.find('x', start) != std::string::npos))
      throw UsageError("--shape '" + text + "' is not MxKxN", "e.g. --shape 10000x100x100000: A is MxK, B is KxN");
    start = end + 1;
  }
  return {dims[0], dims[1], dims[2]};
}

std::string format_matmul_text(const std::vector<MatmulResult>& results) {
  if (results.empty()) return "";
  const auto& first = results.front();
  std::string out = printf_string("matmul A(%lldx%lld) @ B(%lldx%lld), %s, median of %d repeats after a warm-up\n",
                                  static_cast<long long>(first.shape.m), static_cast<long long>(first.shape.k),
                                  static_cast<long long>(first.shape.k), static_cast<long long>(first.shape.n),
                                  first.dtype.c_str(), first.repeats);
  out += printf_string("%-8s %10s %10s %10s %12s %8s  %s\n", "device", "median s", "best s", "GFLOP/s", "peak GFLOP/s",
                       "of peak", "checksum");
  for (const auto& r : results) {
    const std::string peak = r.peak_gflops ? printf_string("%.1f", *r.peak_gflops) : "?";
    const std::string share = r.peak_gflops ? printf_string("%.0f%%", 100.0 * r.gflops() / *r.peak_gflops) : "?";
    out += printf_string("%-8s %10.4f %10.4f %10.1f %12s %8s  %.9g\n", r.device.c_str(), r.median_seconds,
                         r.best_seconds, r.gflops(), peak.c_str(), share.c_str(), r.checksum);
  }
  for (size_t i = 1; i < results.size(); ++i)
    out += printf_string("speed-up of %s over %s: %.1fx\n", results[i].device.c_str(), first.device.c_str(),
                         first.median_seconds / results[i].median_seconds);
  for (const auto& r : results)
    if (r.peak_gflops) out += "peak of " + r.device + ": " + r.peak_basis + "\n";
  return out;
}

std::string format_matmul_json(const std::vector<MatmulResult>& results) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& r : results) {
    const double gflops = r.gflops();
    list.push_back({{"device", r.device},
                    {"dtype", r.dtype},
                    {"m", r.shape.m},
                    {"k", r.shape.k},
                    {"n", r.shape.n},
                    {"repeats", r.repeats},
                    {"median_seconds", json_number(r.median_seconds)},
                    {"best_seconds", json_number(r.best_seconds)},
                    {"gflops", json_number(gflops)},
                    {"checksum", json_number(r.checksum)},
                    {"peak_gflops", r.peak_gflops ? json_number(*r.peak_gflops) : nullptr},
                    {"peak_fraction", r.peak_gflops ? json_number(gflops / *r.peak_gflops) : nullptr}});
  }
  return json_line({{"benchmark", "matmul"}, {"results", list}});
}

}  // namespace trainer
