#include "report/class_report.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report/svg_chart.h"

namespace trainer {
namespace {

template <typename T>
bool read_list(const nlohmann::json& value, size_t size, std::vector<T>& out) {
  if (!value.is_array() || value.size() != size) return false;
  for (const auto& item : value) {
    if (!item.is_number()) return false;
    out.push_back(item.get<T>());
  }
  return true;
}

std::optional<ClassReport> parse_epoch(const nlohmann::json& line) {
  const auto& rows = line["val_confusion_matrix"];
  const auto& scores = line["val_per_class"];
  if (!rows.is_array() || rows.empty() || !scores.is_object()) return std::nullopt;
  const size_t classes = rows.size();
  ClassReport report;
  report.epoch = line.value("epoch", int64_t{0});
  for (const auto& row : rows) {
    report.confusion.emplace_back();
    if (!read_list(row, classes, report.confusion.back())) return std::nullopt;
  }
  for (const char* key : {"precision", "recall", "f1", "support"})
    if (!scores.contains(key)) return std::nullopt;
  if (!read_list(scores["precision"], classes, report.precision) || !read_list(scores["recall"], classes, report.recall) ||
      !read_list(scores["f1"], classes, report.f1) || !read_list(scores["support"], classes, report.support))
    return std::nullopt;
  return report;
}

std::string fixed(double value, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

// White to the report's blue by `share` (0..1).
std::string shade(double share) {
  const auto mix = [share](int from, int to) { return static_cast<int>(std::lround(from + (to - from) * share)); };
  char text[16];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", mix(255, 31), mix(255, 119), mix(255, 180));
  return text;
}

}  // namespace

std::optional<ClassReport> read_class_report(const std::string& metrics_jsonl, const std::string& run_json) {
  std::optional<ClassReport> newest;
  std::istringstream lines(metrics_jsonl);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("\"val_confusion_matrix\"") == std::string::npos) continue;
    const auto json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!json.is_object()) continue;
    if (auto report = parse_epoch(json)) newest = std::move(report);
  }
  if (!newest) return newest;
  const auto run = nlohmann::json::parse(run_json, nullptr, /*allow_exceptions=*/false);
  const bool named = run.is_object() && run.contains("class_names") && run["class_names"].is_array() &&
                     run["class_names"].size() == newest->confusion.size();
  for (size_t c = 0; c < newest->confusion.size(); ++c)
    newest->names.push_back(named && run["class_names"][c].is_string() ? run["class_names"][c].get<std::string>()
                                                                       : std::to_string(c));
  return newest;
}

std::string render_class_report(const ClassReport& report, const std::string& label) {
  const size_t classes = report.confusion.size();
  std::string html = "<h3>" + xml_escape(label) + "validation of epoch " + std::to_string(report.epoch) + "</h3>\n";
  html += "<p class=\"sub\">confusion matrix: a row for each true class, a column for each predicted one, shaded by "
          "the share of the row's samples; then each class's scores</p>\n";
  html += "<div class=\"classes\">\n<table class=\"confusion\"><thead><tr><th>true \\ predicted</th>";
  for (const std::string& name : report.names) html += "<th title=\"predicted " + xml_escape(name) + "\">" + xml_escape(name) + "</th>";
  html += "</tr></thead><tbody>\n";
  for (size_t truth = 0; truth < classes; ++truth) {
    int64_t row_total = 0;
    for (int64_t count : report.confusion[truth]) row_total += count;
    html += "<tr><th>" + xml_escape(report.names[truth]) + "</th>";
    for (size_t guess = 0; guess < classes; ++guess) {
      const int64_t count = report.confusion[truth][guess];
      const double share = row_total > 0 ? static_cast<double>(count) / static_cast<double>(row_total) : 0.0;
      html += "<td style=\"background:" + shade(share) + (share > 0.55 ? ";color:#fff" : "") + "\" title=\"true " +
              xml_escape(report.names[truth]) + ", predicted " + xml_escape(report.names[guess]) + ": " +
              std::to_string(count) + "\">" + std::to_string(count) + "</td>";
    }
    html += "</tr>\n";
  }
  html += "</tbody></table>\n<table class=\"per-class\"><thead><tr><th>class</th><th>precision</th><th>recall</th>"
          "<th>F1</th><th>support</th></tr></thead><tbody>\n";
  for (size_t c = 0; c < classes; ++c)
    html += "<tr><td>" + xml_escape(report.names[c]) + "</td><td>" + fixed(report.precision[c], 3) + "</td><td>" +
            fixed(report.recall[c], 3) + "</td><td>" + fixed(report.f1[c], 3) + "</td><td>" +
            std::to_string(report.support[c]) + "</td></tr>\n";
  return html + "</tbody></table>\n</div>\n";
}

}  // namespace trainer
