#include "report/html_report.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

#include "report/svg_chart.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/input_guard.h"
#include "util/output_guard.h"
#include "util/text.h"

namespace trainer {
namespace {

// metrics.jsonl keys that are not metrics.
bool is_bookkeeping(const std::string& key) {
  static const std::set<std::string> keys{"epoch", "lr", "steps", "samples_per_second", "data_wait_fraction",
                                          "gpu_idle_for_data_fraction",
                                          "timed_steps", "peak_memory_bytes", "loss_scale", "skipped_steps",
                                          "gpu_utilization", "gpu_memory_used_bytes", "gpu_samples",
                                          // train.monitor's verdicts
                                          "improved", "best_epoch", "stopped_early"};
  const bool seconds = key.size() > 8 && key.compare(key.size() - 8, 8, "_seconds") == 0;
  return keys.count(key) > 0 || seconds;
}

bool any_epoch_has(const std::vector<RunFiles>& runs, const std::string& key) {
  return std::any_of(runs.begin(), runs.end(), [&](const RunFiles& run) {
    return std::any_of(run.epochs.begin(), run.epochs.end(),
                       [&](const NumberRecord& epoch) { return epoch.count(key) > 0; });
  });
}

// Metric names in order of first appearance, train names only ("loss", "accuracy").
std::vector<std::string> metric_names(const std::vector<RunFiles>& runs) {
  std::vector<std::string> names;
  const auto add = [&](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  add("loss");
  for (const RunFiles& run : runs)
    for (const NumberRecord& epoch : run.epochs)
      for (const auto& entry : epoch) {
        const std::string& key = entry.first;
        if (is_bookkeeping(key)) continue;
        add(key.rfind("val_", 0) == 0 ? key.substr(4) : key);
      }
  return names;
}

std::vector<std::pair<double, double>> series_of(const std::vector<NumberRecord>& records, const std::string& x,
                                                 const std::string& y, double scale = 1.0) {
  std::vector<std::pair<double, double>> points;
  for (const NumberRecord& record : records) {
    const auto at_x = record.find(x), at_y = record.find(y);
    if (at_x != record.end() && at_y != record.end()) points.emplace_back(at_x->second, at_y->second * scale);
  }
  return points;
}

// "fashion/lr-0.01", or just the run's name when every run is of one experiment.
std::vector<std::string> run_labels(const std::vector<RunFiles>& runs) {
  std::set<std::string> experiments;
  for (const RunFiles& run : runs) experiments.insert(run.listing.experiment);
  std::vector<std::string> labels;
  for (const RunFiles& run : runs)
    labels.push_back(experiments.size() > 1 ? run.listing.experiment + "/" + run.listing.name : run.listing.name);
  return labels;
}

struct Charts {
  const std::vector<RunFiles>& runs;
  std::vector<std::string> labels;
  bool several() const { return runs.size() > 1; }

  // One series per run (or, for a single run, the one series named `single`).
  LineChart per_run(const std::string& title, const std::string& x_label, const std::string& y_label,
                    const std::string& x, const std::string& y, bool by_step, double scale = 1.0) const {
    LineChart chart{title, x_label, y_label, {}, true, !by_step};
    for (size_t i = 0; i < runs.size(); ++i) {
      const auto& records = by_step ? runs[i].steps : runs[i].epochs;
      chart.series.push_back({several() ? labels[i] : y_label, run_color(i), false, !by_step,
                              series_of(records, x, y, scale)});
    }
    return chart;
  }

  // Training (solid) and validation (dashed) of one metric by epoch.
  LineChart metric(const std::string& name) const {
    LineChart chart{name + " by epoch", "epoch", name, {}, false, true};
    for (size_t i = 0; i < runs.size(); ++i) {
      const std::string prefix = several() ? labels[i] + " " : "";
      auto train = series_of(runs[i].epochs, "epoch", name);
      auto valid = series_of(runs[i].epochs, "epoch", "val_" + name);
      if (!train.empty()) chart.series.push_back({prefix + "training", run_color(i), false, true, std::move(train)});
      if (!valid.empty())
        chart.series.push_back({prefix + "validation", several() ? run_color(i) : run_color(1), true, true,
                                std::move(valid)});
    }
    return chart;
  }

  // Each phase's share of one run's step time, by epoch.
  LineChart step_split(size_t i) const {
    LineChart chart{"step time" + (several() ? ": " + labels[i] : std::string()), "epoch", "% of step time", {},
                    true, true};
    const std::vector<std::pair<std::string, std::string>> phases{
        {"data", "data_seconds"},           {"forward", "forward_seconds"}, {"backward", "backward_seconds"},
        {"all-reduce", "all_reduce_seconds"}, {"optimizer", "optimizer_seconds"}};
    for (size_t p = 0; p < phases.size(); ++p) {
      ChartSeries series{phases[p].first, run_color(p), false, true, {}};
      for (const NumberRecord& epoch : runs[i].epochs) {
        double total = 0;
        for (const auto& phase : phases)
          if (auto it = epoch.find(phase.second); it != epoch.end()) total += it->second;
        const auto value = epoch.find(phases[p].second);
        const auto number = epoch.find("epoch");
        if (value != epoch.end() && number != epoch.end() && total > 0)
          series.points.emplace_back(number->second, 100.0 * value->second / total);
      }
      chart.series.push_back(std::move(series));
    }
    return chart;
  }
};

std::string format_value(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

std::string runs_table(const std::vector<RunFiles>& runs, const std::vector<std::string>& labels) {
  std::string html = "<table class=\"runs\"><thead><tr><th></th><th>run</th><th>status</th><th>epochs</th>"
                     "<th>best</th><th>time</th><th>directory</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunListing& run = runs[i].listing;
    const std::string best = run.best ? xml_escape(run.metric) + " " + format_value(*run.best) + " at epoch " +
                                            std::to_string(run.best_epoch)
                                      : "&ndash;";
    html += "<tr><td><span class=\"swatch\" style=\"background:" + run_color(i) + "\"></span></td><td>" +
            xml_escape(labels[i]) + "</td><td class=\"status " + xml_escape(run.status) + "\">" +
            xml_escape(run.status.empty() ? "unknown" : run.status) + "</td><td>" + std::to_string(run.epochs_done) +
            " / " + std::to_string(run.epochs) + "</td><td>" + best + "</td><td>" +
            (run.seconds ? format_time_taken(*run.seconds) : "&ndash;") + "</td><td><code>" + xml_escape(runs[i].dir) +
            "</code></td></tr>\n";
  }
  return html + "</tbody></table>\n";
}

// The config keys whose values differ between the runs (the run name aside).
std::string config_differences(const std::vector<RunFiles>& runs, const std::vector<std::string>& labels) {
  std::set<std::string> keys;
  for (const RunFiles& run : runs)
    for (const auto& entry : run.config) keys.insert(entry.first);
  std::string rows;
  for (const std::string& key : keys) {
    if (key == "log.run_name") continue;
    std::set<std::string> values;
    for (const RunFiles& run : runs) {
      const auto it = run.config.find(key);
      values.insert(it == run.config.end() ? "(absent)" : it->second);
    }
    if (values.size() < 2) continue;
    rows += "<tr><td><code>" + xml_escape(key) + "</code></td>";
    for (const RunFiles& run : runs) {
      const auto it = run.config.find(key);
      rows += "<td>" + xml_escape(it == run.config.end() ? "(absent)" : it->second) + "</td>";
    }
    rows += "</tr>\n";
  }
  std::string html = "<h2>Config differences</h2>\n";
  if (rows.empty()) return html + "<p>The runs' configs are the same (their names aside).</p>\n";
  html += "<table class=\"diff\"><thead><tr><th>key</th>";
  for (const std::string& label : labels) html += "<th>" + xml_escape(label) + "</th>";
  return html + "</tr></thead><tbody>\n" + rows + "</tbody></table>\n";
}

const char* kStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 24px 32px;
       color: #1d2330; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 10px; }
.sub { color: #5b6474; margin: 0 0 18px; }
.unread { color: #9a6700; background: #fff8e5; border-left: 3px solid #d4a72c; padding: 6px 10px; margin: 0 0 12px; }
table { border-collapse: collapse; font-size: 14px; }
th, td { text-align: left; padding: 5px 12px 5px 0; border-bottom: 1px solid #e3e6ec; vertical-align: top; }
th { color: #5b6474; font-weight: 600; }
code { font-size: 13px; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; }
.status.done { color: #1a7f37; } .status.failed, .status.diverged, .status.killed { color: #c62828; }
.status.interrupted, .status.requeue { color: #9a6700; } .status.pruned { color: #6e7781; } .status.running { color: #0550ae; }
table.runs td:nth-child(4), table.runs td:nth-child(5), table.runs td:nth-child(6) { white-space: nowrap; }
table.runs code { word-break: break-all; }
.charts { display: flex; flex-wrap: wrap; gap: 12px 20px; }
svg.chart { background: #fff; }
svg .title { font-size: 14px; font-weight: 600; fill: #1d2330; }
svg .plot { fill: #fafbfc; stroke: #c9ced8; }
svg .grid { stroke: #e6e9ef; } svg .axis { stroke: #9aa2b1; }
svg .tick, svg .legend, svg .label { font-size: 12px; fill: #3b4252; } svg .empty { font-size: 13px; fill: #8a93a3; }
h3 { font-size: 15px; margin: 18px 0 8px; }
.classes { display: flex; flex-wrap: wrap; gap: 12px 32px; align-items: flex-start; }
table.confusion { font-size: 12px; font-variant-numeric: tabular-nums; }
table.confusion td { text-align: right; padding: 3px 6px; border: 1px solid #eef0f4; min-width: 22px; }
table.confusion th { padding: 3px 6px; font-size: 12px; }
table.per-class td { font-variant-numeric: tabular-nums; }
table.samples img { display: block; width: 256px; height: auto; image-rendering: pixelated; }
pre { background: #f6f8fa; padding: 12px; font-size: 12px; overflow-x: auto; }
)";

}  // namespace

std::string render_report(const std::vector<RunFiles>& runs) {
  Charts charts{runs, run_labels(runs)};
  const std::string title = runs.size() == 1 ? "trainer run " + charts.labels[0]
                                             : "trainer: " + std::to_string(runs.size()) + " runs compared";
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                     xml_escape(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  html += "<h1>" + xml_escape(title) + "</h1>\n<p class=\"sub\">" +
          (runs.size() == 1 ? "experiment " + xml_escape(runs[0].listing.experiment) + ", started " +
                                  xml_escape(runs[0].listing.started_at.empty() ? "(unknown)" : runs[0].listing.started_at)
                            : std::string("training solid, validation dashed; one colour per run")) +
          "</p>\n";
  // A file that could not be read leaves its curves out: the page says why
  // rather than look like a run that recorded nothing.
  for (const RunFiles& run : runs)
    for (const std::string& unread : run.unread)
      html += "<p class=\"unread\">Left out: " + xml_escape(printable(unread)) + "</p>\n";
  html += runs_table(runs, charts.labels);
  if (runs.size() > 1) html += config_differences(runs, charts.labels);

  html += "<h2>Metrics</h2>\n<div class=\"charts\">\n";
  for (const std::string& name : metric_names(runs)) html += render_svg(charts.metric(name));
  html += "</div>\n<h2>By step</h2>\n<div class=\"charts\">\n";
  LineChart step_loss = charts.per_run("training loss by step", "step", "loss", "step", "loss", true);
  step_loss.y_from_zero = false;
  html += render_svg(step_loss);
  html += render_svg(charts.per_run("learning rate", "step", "learning rate", "step", "lr", true));
  html += "</div>\n<h2>Speed and memory</h2>\n<div class=\"charts\">\n";
  html += render_svg(charts.per_run("training samples/s", "epoch", "samples/s", "epoch", "samples_per_second", false));
  html += render_svg(charts.per_run("waiting for data", "epoch", "% of training time", "epoch", "data_wait_fraction",
                                    false, 100.0));
  // GPU runs: what of that wait left the GPU idle (the host runs ahead of it).
  if (any_epoch_has(runs, "gpu_idle_for_data_fraction"))
    html += render_svg(charts.per_run("GPU idle for want of data", "epoch", "% of training time", "epoch",
                                      "gpu_idle_for_data_fraction", false, 100.0));
  for (size_t i = 0; i < runs.size(); ++i) html += render_svg(charts.step_split(i));
  html += render_svg(charts.per_run("peak memory", "epoch", "MiB", "epoch", "peak_memory_bytes", false,
                                    1.0 / (1024.0 * 1024.0)));
  // GPU runs with NVML: the card's utilisation and memory, as nvtop shows them.
  if (any_epoch_has(runs, "gpu_utilization")) {
    html += render_svg(charts.per_run("GPU utilisation", "epoch", "% of time busy", "epoch", "gpu_utilization", false));
    html += render_svg(charts.per_run("GPU memory used (all processes)", "epoch", "MiB", "epoch",
                                      "gpu_memory_used_bytes", false, 1.0 / (1024.0 * 1024.0)));
  }
  html += "</div>\n";
  if (std::any_of(runs.begin(), runs.end(), [](const RunFiles& run) { return run.classes.has_value(); })) {
    html += "<h2>Classes</h2>\n";
    for (size_t i = 0; i < runs.size(); ++i)
      if (runs[i].classes)
        html += render_class_report(*runs[i].classes, charts.several() ? charts.labels[i] + ": " : std::string());
  }
  if (std::any_of(runs.begin(), runs.end(), [](const RunFiles& run) { return !run.samples.pictures.empty(); })) {
    html += "<h2>Samples</h2>\n";
    for (size_t i = 0; i < runs.size(); ++i)
      html += render_sample_pictures(runs[i].samples, charts.several() ? charts.labels[i] : std::string());
  }
  if (runs.size() == 1 && !runs[0].config_text.empty())
    html += "<h2>Config</h2>\n<details><summary>the resolved config</summary><pre>" + xml_escape(runs[0].config_text) +
            "</pre></details>\n";
  return html + "</body>\n</html>\n";
}

std::vector<std::string> write_report(const std::vector<std::string>& run_dirs, const std::string& output) {
  std::vector<RunFiles> runs;
  if (output != "-") {
    check_replaceable(output);
    check_replaces_own_output("-o", output, "a page trainer wrote", kPageHeadBytes, is_trainer_page);
    // The page must not replace what it is drawn from (RUN/metrics.jsonl).
    std::vector<ReadFile> inputs;
    for (const std::string& dir : run_dirs)
      for (const char* name : {"metrics.jsonl", "steps.jsonl", "run.json", "config.yaml"})
        inputs.push_back({(std::filesystem::path(dir) / name).string(),
                          std::string("the ") + name + " of the run " + printable(dir)});
    check_not_an_input("-o", output, inputs);
  }
  for (const std::string& dir : run_dirs) runs.push_back(read_run_files(dir));
  const std::string html = render_report(runs);
  if (output != "-") {
    write_file_atomic(output, html);
  } else if (std::fwrite(html.data(), 1, html.size(), stdout) != html.size() || std::fflush(stdout) != 0) {
    throw IoError(std::string("cannot write the report to standard output: ") + std::strerror(errno));
  }
  std::vector<std::string> unread;
  for (const RunFiles& run : runs) unread.insert(unread.end(), run.unread.begin(), run.unread.end());
  return unread;
}

}  // namespace trainer
