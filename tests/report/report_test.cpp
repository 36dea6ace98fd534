// The run report: chart arithmetic, the SVG a chart becomes, the page for
// one run and for several (runs table, config differences), and that the
// page stands alone (no scripts, nothing fetched).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>

#include "report/html_report.h"
#include "report/run_files.h"
#include "report/svg_chart.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;
using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

// A run directory as trainer leaves it, with `epochs` epochs whose loss
// falls from `start`.
std::string write_run(const std::string& root, const std::string& name, double lr, double start, int epochs = 3) {
  const std::string dir = root + "/exp/" + name;
  fs::create_directories(dir);
  std::ofstream(dir + "/config.yaml") << "experiment: {name: exp}\noptimizer: {name: adam, lr: " << lr
                                      << "}\nlog: {run_name: " << name << "}\ndata: {shape: [28, 28]}\n";
  std::ofstream metrics(dir + "/metrics.jsonl"), steps(dir + "/steps.jsonl");
  for (int e = 1; e <= epochs; ++e) {
    metrics << "{\"epoch\":" << e << ",\"loss\":" << start / e << ",\"accuracy\":" << 0.5 + 0.1 * e
            << ",\"val_loss\":" << start / e + 0.1 << ",\"val_accuracy\":" << 0.45 + 0.1 * e
            << ",\"lr\":" << lr << ",\"samples_per_second\":1000,\"data_wait_fraction\":0.01,"
            << "\"data_seconds\":0.1,\"forward_seconds\":1,\"backward_seconds\":2,\"all_reduce_seconds\":0,"
            << "\"optimizer_seconds\":0.4,\"timed_steps\":10,\"peak_memory_bytes\":" << 1048576 * e
            << ",\"improved\":true,\"best_epoch\":" << e << "}\n";
    for (int s = 1; s <= 2; ++s)
      steps << "{\"step\":" << (e - 1) * 20 + s * 10 << ",\"epoch\":" << e << ",\"loss\":" << start / e
            << ",\"lr\":" << lr << "}\n";
  }
  std::ofstream(dir + "/run.json")
      << R"({"format":1,"status":"done","experiment":"exp","started_at":"2026-11-24T10:00:00Z",)"
      << R"("ended_at":"2026-11-24T10:01:00Z","epochs":3,"epochs_done":3,"metrics":{"loss":{"best":0.1,"best_epoch":3},)"
      << R"("val_loss":{"best":0.2,"best_epoch":3},"val_accuracy":{"best":0.75,"best_epoch":3}}})";
  return dir;
}

}  // namespace

TEST_CASE("axis ticks are round numbers covering the range", "[report]") {
  CHECK(nice_ticks(0, 1) == std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1.0});
  CHECK(nice_ticks(1, 10) == std::vector<double>{2, 4, 6, 8, 10});
  const auto ticks = nice_ticks(0.31, 0.87);
  REQUIRE_FALSE(ticks.empty());
  CHECK(ticks.front() >= 0.31);
  CHECK(ticks.back() <= 0.87);
  CHECK(ticks.size() >= 3);
  // Epochs: never between two.
  CHECK(nice_ticks(1, 3, 5, 1.0) == std::vector<double>{1, 2, 3});
}

TEST_CASE("a chart survives any value: spans that overflow, huge single points, NaN and infinities", "[report]") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::vector<std::vector<std::pair<double, double>>> cases = {
      {{1, -1e308}, {2, 1e308}},                  // the span overflows a double
      {{1, 1e308}},                               // one point at the top of the range
      {{1, -1.7976931348623157e308}, {2, -1.7976931348623157e308}},
      {{1, 1e300}, {2, 1.0000000000000002e300}},  // k + 1 == k for the tick counter
      {{1, nan}, {2, inf}, {3, -inf}},            // nothing finite: no data
      {{1e308, 1}, {-1e308, 2}},                  // on the x axis too
      {{5, 0.25}}};
  for (const auto& points : cases) {
    LineChart chart{"loss", "epoch", "loss", {{"run", "#1f77b4", false, true, points}}, false};
    const std::string svg = render_svg(chart);
    INFO(svg);
    CHECK_THAT(svg, Catch::EndsWith("</svg>\n"));
    CHECK(svg.find("nan") == std::string::npos);
    CHECK(svg.find("inf") == std::string::npos);
  }
  CHECK(nice_ticks(-1e308, 1e308).size() >= 3);
  CHECK(nice_ticks(1e300, 1.0000000000000002e300).size() <= 64);
}

TEST_CASE("text is escaped for XML and HTML", "[report]") {
  CHECK(xml_escape("a<b & \"c\" 'd'>") == "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
}

TEST_CASE("a chart draws each series in its colour, breaks lines at NaN, and says when it has no data",
          "[report]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  LineChart chart{"loss <by> epoch", "epoch", "loss", {}, false};
  chart.series.push_back({"a & b", "#1f77b4", false, true, {{1, 1.0}, {2, 0.5}, {3, nan}, {4, 0.3}, {5, 0.2}}});
  chart.series.push_back({"validation", "#ff7f0e", true, false, {{1, 1.2}, {5, 0.4}}});
  const std::string svg = render_svg(chart);
  CHECK_THAT(svg, Catch::StartsWith("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK_THAT(svg, Catch::Contains("loss &lt;by&gt; epoch") && Catch::Contains("a &amp; b"));
  CHECK(count(svg, "<polyline") == 3);  // the NaN splits the first series in two
  CHECK(count(svg, "stroke=\"#1f77b4\" stroke-width=\"2\" points=") == 2);
  CHECK(count(svg, "stroke-dasharray=\"6 4\" points=") == 1);
  CHECK(count(svg, "<circle") == 4);  // markers on the first series' finite points
  CHECK(svg.find("no data yet") == std::string::npos);
  const std::string empty = render_svg(LineChart{"nothing", "x", "y", {{"s", "#000", false, false, {}}}, false});
  CHECK_THAT(empty, Catch::Contains("no data yet"));
  CHECK(count(empty, "<polyline") == 0);
}

TEST_CASE("a YAML config flattens to key paths", "[report]") {
  const auto flat = flatten_yaml("a: {b: 1, c: [28, 28]}\nlayers:\n  - {type: dense, units: 4}\n  - {type: relu}\n");
  CHECK(flat.at("a.b") == "1");
  CHECK(flat.at("a.c") == "[28, 28]");
  CHECK(flat.at("layers[0].units") == "4");
  CHECK(flat.at("layers[1].type") == "relu");
  CHECK(flatten_yaml("a: [unclosed").empty());
  // A config.yaml edited into a value that holds itself: no table, and no crash.
  CHECK(flatten_yaml("a: &a {b: *a}\n").empty());
}

TEST_CASE("the report of one run: its table, every metric, steps, speed, memory and config", "[report]") {
  const std::string root = fresh_dir("report-one");
  const RunFiles run = read_run_files(write_run(root, "a", 0.01, 2.0));
  CHECK(run.epochs.size() == 3);
  CHECK(run.steps.size() == 6);
  const std::string html = render_report({run});
  CHECK_THAT(html, Catch::StartsWith("<!DOCTYPE html>"));
  CHECK_THAT(html, Catch::Contains("<title>trainer run a</title>"));
  CHECK_THAT(html, Catch::Contains("val_accuracy 0.75 at epoch 3") && Catch::Contains("1m00s") &&
                       Catch::Contains("3 / 3"));
  for (const std::string title : {"loss by epoch", "accuracy by epoch", "training loss by step", "learning rate",
                                  "training samples/s", "waiting for data", "step time", "peak memory"})
    CHECK_THAT(html, Catch::Contains(">" + title + "</text>"));
  CHECK(html.find("no data yet") == std::string::npos);
  // train.monitor's verdicts are not metrics.
  CHECK(html.find("best_epoch by epoch") == std::string::npos);
  CHECK(html.find("improved by epoch") == std::string::npos);
  CHECK_THAT(html, Catch::Contains("the resolved config"));
  // Self-contained: nothing runs, nothing is fetched.
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("src=") == std::string::npos);
  CHECK(html.find("href=") == std::string::npos);
  CHECK(html.find("@import") == std::string::npos);
}

TEST_CASE("a run file that is there but cannot be read is named on the page, never read blocking", "[report]") {
  const std::string root = fresh_dir("report-unread");
  const std::string dir = write_run(root, "a", 0.01, 2.0);
  // A FIFO opened to read would wait for a writer that never comes.
  fs::remove(dir + "/metrics.jsonl");
  REQUIRE(mkfifo((dir + "/metrics.jsonl").c_str(), 0600) == 0);
  fs::remove(dir + "/config.yaml");
  fs::create_directory(dir + "/config.yaml");
  const RunFiles run = read_run_files(dir);
  CHECK(run.epochs.empty());
  CHECK(run.steps.size() == 6);  // the readable files are still read
  REQUIRE(run.unread.size() == 2);
  CHECK(run.unread[0] == dir + "/metrics.jsonl is a FIFO, not a regular file");
  CHECK(run.unread[1] == dir + "/config.yaml is a directory, not a regular file");
  const std::string html = render_report({run});
  CHECK_THAT(html, Catch::Contains("<p class=\"unread\">Left out: " + dir + "/metrics.jsonl is a FIFO"));
  CHECK(write_report({dir}, root + "/page.html") == run.unread);

  // Without a readable record at all, the folder is refused for the file's
  // reason, not called "not a run directory".
  fs::remove(dir + "/run.json");
  CHECK_THROWS_WITH(read_run_files(dir), dir + "/metrics.jsonl is a FIFO, not a regular file");
  // A file absent is a run that has not written it: nothing to say.
  const RunFiles plain = read_run_files(write_run(root, "b", 0.01, 2.0));
  CHECK(plain.unread.empty());
}

TEST_CASE("the report of several runs overlays them and lists the config keys that differ", "[report]") {
  const std::string root = fresh_dir("report-several");
  const std::string a = write_run(root, "lr-0.01", 0.01, 2.0), b = write_run(root, "lr-0.001", 0.001, 3.0);
  const std::string output = root + "/compare.html";
  write_report({a, b}, output);
  const std::string html = [&] {
    std::ifstream in(output);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  CHECK_THAT(html, Catch::Contains("2 runs compared"));
  CHECK_THAT(html, Catch::Contains("lr-0.01 training") && Catch::Contains("lr-0.001 validation"));
  // optimizer.lr differs, log.run_name is left out, data.shape is the same.
  CHECK_THAT(html, Catch::Contains("<code>optimizer.lr</code></td><td>0.01</td><td>0.001</td>"));
  CHECK(html.find("<code>log.run_name</code>") == std::string::npos);
  CHECK(html.find("<code>data.shape</code>") == std::string::npos);
  // Each run's colour is in the curves of every metric chart.
  CHECK(count(html, "stroke=\"#1f77b4\" stroke-width=\"2\" points=") >= 4);
  CHECK(count(html, "stroke=\"#ff7f0e\" stroke-width=\"2\" points=") >= 4);
  CHECK_THROWS_AS(write_report({root}, root + "/x.html"), DataError);
  CHECK_THROWS_WITH(write_report({root}, root + "/x.html"), Catch::Contains(root + ": not a run directory"));
  CHECK_FALSE(fs::exists(root + "/x.html"));
}
