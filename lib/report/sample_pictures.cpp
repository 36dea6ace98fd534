#include "report/sample_pictures.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "report/svg_chart.h"
#include "util/base64.h"
#include "util/read_file.h"

namespace trainer {

namespace fs = std::filesystem;

namespace {

// Input, output, target in that order; any other role after them, by name.
int role_rank(const std::string& role) {
  static const std::map<std::string, int> ranks{{"input", 0}, {"output", 1}, {"target", 2}};
  const auto it = ranks.find(role);
  return it == ranks.end() ? 3 : it->second;
}

bool role_before(const std::string& a, const std::string& b) {
  return role_rank(a) != role_rank(b) ? role_rank(a) < role_rank(b) : a < b;
}

}  // namespace

SamplePictures read_sample_pictures(const std::string& run_dir) {
  SamplePictures samples;
  const fs::path dir = fs::path(run_dir) / "samples";
  std::error_code error;
  if (!fs::is_directory(dir, error)) return samples;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const fs::path& path = entry.path();
    if (path.extension() != ".png" || !entry.is_regular_file(error)) continue;
    const std::string stem = path.stem().string();
    const size_t dash = stem.rfind('-');
    if (dash == std::string::npos || dash == 0 || dash + 1 == stem.size()) continue;
    auto png = read_text_file(path.string());
    if (!png) continue;
    samples.pictures.push_back({stem.substr(0, dash), stem.substr(dash + 1), std::move(*png)});
  }
  std::sort(samples.pictures.begin(), samples.pictures.end(), [](const SamplePicture& a, const SamplePicture& b) {
    return a.sample != b.sample ? a.sample < b.sample : role_before(a.role, b.role);
  });
  if (const auto step = read_text_file((dir / "step").string())) {
    try {
      samples.step = std::stoll(*step);
    } catch (const std::exception&) {
      samples.step = -1;  // a damaged file: the pictures are still worth showing
    }
  }
  return samples;
}

std::string render_sample_pictures(const SamplePictures& samples, const std::string& label) {
  if (samples.pictures.empty()) return "";
  std::vector<std::string> roles;
  for (const SamplePicture& picture : samples.pictures)
    if (std::find(roles.begin(), roles.end(), picture.role) == roles.end()) roles.push_back(picture.role);
  std::sort(roles.begin(), roles.end(), role_before);
  std::string html = label.empty() ? std::string() : "<h3>" + xml_escape(label) + "</h3>\n";
  html += "<p class=\"sub\">the first validation samples through the model" +
          (samples.step >= 0 ? " after step " + std::to_string(samples.step) : std::string()) +
          ", the newest epoch's</p>\n<table class=\"samples\">\n<tr><th></th>";
  for (const std::string& role : roles) html += "<th>" + xml_escape(role) + "</th>";
  html += "</tr>\n";
  // The pictures are sorted by sample: each row is one run of them.
  for (auto row = samples.pictures.begin(); row != samples.pictures.end();) {
    const auto end = std::find_if(row, samples.pictures.end(),
                                  [&](const SamplePicture& picture) { return picture.sample != row->sample; });
    html += "<tr><th>" + xml_escape(row->sample) + "</th>";
    for (const std::string& role : roles) {
      const auto cell = std::find_if(row, end, [&](const SamplePicture& picture) { return picture.role == role; });
      html += "<td>";
      if (cell != end)
        html += "<img alt=\"" + xml_escape(cell->sample + " " + role) + "\" src=\"data:image/png;base64," +
                base64_encode(cell->png) + "\">";
      html += "</td>";
    }
    html += "</tr>\n";
    row = end;
  }
  return html + "</table>\n";
}

}  // namespace trainer
