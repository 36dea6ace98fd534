// The run report end to end: every run keeps RUN_DIR/report.html and
// steps.jsonl, `trainer report` compares runs, and a real browser (headless
// Chromium) draws the curves of every run and names each in a legend, and
// lays out a classifier's confusion matrix.
#include <catch2/catch.hpp>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "images/image_codec.h"
#include "experiment_files.h"

using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

const char* kChromium = "/usr/bin/chromium";

std::string run_experiment(const std::string& dir, const std::string& name, const std::string& lr) {
  const MlpExperiment spec =
      small_mlp("rep", name, "metrics: [accuracy]\noptimizer: {lr: " + lr + "}\ntrain: {epochs: 3, batch_size: 20}\n");
  const auto result = run_trainer({"run", write_mlp_experiment(dir, spec), "--set", "log.scalars_every=5"}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  return dir + "/runs/rep/" + name;
}

// Pixels of `image` within `tolerance` of the colour in every channel.
size_t pixels_near(const trainer::Image& image, int r, int g, int b, int tolerance = 12) {
  size_t n = 0;
  for (int64_t i = 0; i + 2 < static_cast<int64_t>(image.pixels.size()); i += image.channels)
    n += std::abs(image.pixels[i] - r) <= tolerance && std::abs(image.pixels[i + 1] - g) <= tolerance &&
         std::abs(image.pixels[i + 2] - b) <= tolerance;
  return n;
}

}  // namespace

TEST_CASE("a run keeps report.html and steps.jsonl, and trainer report compares runs", "[e2e][report]") {
  const std::string dir = fresh_dir("report-e2e");
  const std::string a = run_experiment(dir, "fast", "0.01");
  CHECK_THAT(read_text(a + "/report.html"), Catch::Contains("<title>trainer run fast</title>") &&
                                                 Catch::Contains(">loss by epoch</text>"));
  // Every 5th of 60 steps.
  std::ifstream steps(a + "/steps.jsonl");
  int64_t lines = 0, last = 0;
  for (std::string line; std::getline(steps, line); ++lines) {
    const auto point = nlohmann::json::parse(line);
    CHECK(point["step"].get<int64_t>() == last + 5);
    last = point["step"];
    CHECK(point["loss"].is_number());
  }
  CHECK(lines == 12);
  const std::string b = run_experiment(dir, "slow", "0.001");
  const auto report = run_trainer({"report", a, b, "-o", dir + "/compare.html"}, dir);
  INFO(report.err);
  REQUIRE(report.exit_code == 0);
  CHECK_THAT(report.err, Catch::Contains("wrote " + dir + "/compare.html (2 runs)"));
  CHECK_THAT(read_text(dir + "/compare.html"), Catch::Contains("<code>optimizer.lr</code>"));
  const auto wrong = run_trainer({"report", dir, "-o", dir + "/wrong.html"}, dir);
  CHECK(wrong.exit_code == 3);
  CHECK_THAT(wrong.err, Catch::Contains(dir + ": not a run directory"));
  CHECK_FALSE(fs::exists(dir + "/wrong.html"));
}

TEST_CASE("headless Chromium draws every run's curves and names each run in the legends", "[e2e][report][browser]") {
  if (!fs::exists(kChromium)) {
    WARN("SKIPPED: needs Debian's chromium (" << kChromium << ")");
    return;
  }
  const std::string dir = fresh_dir("report-browser");
  const std::string a = run_experiment(dir, "first", "0.01");
  const std::string b = run_experiment(dir, "second", "0.001");
  const std::string page = dir + "/compare.html";
  REQUIRE(run_trainer({"report", a, b, "-o", page}, dir).exit_code == 0);
  const std::string browser = std::string("timeout 120 ") + kChromium +
                              " --headless=new --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=" + dir +
                              "/profile --window-size=1250,2400";
  const std::string screenshot = dir + "/compare.png";
  REQUIRE(std::system((browser + " --screenshot=" + screenshot + " file://" + page + " >" + dir +
                       "/chromium.log 2>&1").c_str()) == 0);
  const std::string png = read_text(screenshot);
  const trainer::Image image = trainer::decode_image(png, screenshot, 3);
  CHECK(image.width == 1250);
  // Curves in the runs' colours (blue #1f77b4, orange #ff7f0e): far more
  // pixels than the legend swatches alone would make, so the plots are drawn.
  CHECK(pixels_near(image, 0x1f, 0x77, 0xb4) > 3000);
  CHECK(pixels_near(image, 0xff, 0x7f, 0x0e) > 3000);
  // The page as the browser parsed it names both runs in the legends.
  REQUIRE(std::system((browser + " --dump-dom file://" + page + " >" + dir + "/dom.html 2>" + dir + "/dom.log")
                          .c_str()) == 0);
  const std::string dom = read_text(dir + "/dom.html");
  CHECK_THAT(dom, Catch::Contains("class=\"legend\" x=") && Catch::Contains(">first training</text>") &&
                      Catch::Contains(">second validation</text>"));
}

TEST_CASE("headless Chromium finds no legend entry over another, however long the run names", "[e2e][report][browser]") {
  if (!fs::exists(kChromium)) {
    WARN("SKIPPED: needs Debian's chromium (" << kChromium << ")");
    return;
  }
  const std::string dir = fresh_dir("report-legends");
  // Long names, as a sweep makes them (with '+' for its ',', which the flow
  // mapping of the test's experiment file would split), and one longer than
  // a whole legend row.
  std::vector<std::string> runs;
  for (const std::string name : {"lr=0.1+batch_size=32", "lr=0.01+batch_size=32", "lr=0.001+batch_size=128",
                                 "optimizer.name=adam+optimizer.lr=0.0001+train.batch_size=64+model.layers.0.units=128"})
    runs.push_back(run_experiment(dir, name, "0.01"));
  std::vector<std::string> args{"report"};
  args.insert(args.end(), runs.begin(), runs.end());
  args.insert(args.end(), {"-o", dir + "/compare.html"});
  REQUIRE(run_trainer(args, dir).exit_code == 0);
  // The page with a script that measures, as the browser laid it out, every
  // legend entry (its line sample and its text) of every chart.
  std::string page = read_text(dir + "/compare.html");
  const std::string measure = R"(<script>
window.addEventListener('load', () => {
  let entries = 0, overlaps = 0, outside = 0;
  for (const svg of document.querySelectorAll('svg.chart')) {
    const width = svg.viewBox.baseVal.width, boxes = [];
    for (const text of svg.querySelectorAll('text.legend')) {
      const b = text.getBBox(), x0 = b.x - 28;
      boxes.push([x0, b.y, b.x + b.width, b.y + b.height]);
      if (x0 < 0 || b.x + b.width > width) ++outside;
    }
    entries += boxes.length;
    for (let i = 0; i < boxes.length; ++i)
      for (let j = i + 1; j < boxes.length; ++j) {
        const [a, c] = [boxes[i], boxes[j]];
        if (a[0] < c[2] && c[0] < a[2] && a[1] < c[3] && c[1] < a[3]) ++overlaps;
      }
  }
  document.body.setAttribute('data-legend', entries + ' entries, ' + overlaps + ' overlapping, ' + outside + ' outside');
});
</script>)";
  page.replace(page.rfind("</body>"), 7, measure + "</body>");
  std::ofstream(dir + "/measured.html") << page;
  const std::string browser = std::string("timeout 120 ") + kChromium +
                              " --headless=new --no-sandbox --disable-gpu --user-data-dir=" + dir + "/profile";
  REQUIRE(std::system((browser + " --dump-dom file://" + dir + "/measured.html >" + dir + "/dom.html 2>" + dir +
                       "/dom.log")
                          .c_str()) == 0);
  const std::string dom = read_text(dir + "/dom.html");
  std::smatch found;
  REQUIRE(std::regex_search(dom, found, std::regex(R"(data-legend="(\d+) entries, (\d+) overlapping, (\d+) outside")")));
  CHECK(std::stoi(found[1]) >= 8);  // four runs, training and validation, in each chart
  CHECK(found[2] == "0");
  CHECK(found[3] == "0");
  // The name too long for a row is cut, and whole in its tooltip.
  CHECK_THAT(dom, Catch::Contains("<title>optimizer.name=adam+optimizer.lr=0.0001+train.batch_size=64+"));
}

TEST_CASE("headless Chromium lays out a classifier's confusion matrix and class scores", "[e2e][report][browser][classes]") {
  if (!fs::exists(kChromium)) {
    WARN("SKIPPED: needs Debian's chromium (" << kChromium << ")");
    return;
  }
  const std::string dir = fresh_dir("report-classes");
  const MlpExperiment spec = small_mlp("rep", "classes", "metrics: [accuracy, f1]\ntrain: {epochs: 2}\n");
  REQUIRE(run_trainer({"run", write_mlp_experiment(dir, spec)}, dir).exit_code == 0);
  const std::string page = dir + "/runs/rep/classes/report.html";
  const std::string browser = std::string("timeout 120 ") + kChromium +
                              " --headless=new --no-sandbox --disable-gpu --user-data-dir=" + dir + "/profile";
  REQUIRE(std::system((browser + " --dump-dom file://" + page + " >" + dir + "/dom.html 2>" + dir + "/dom.log")
                          .c_str()) == 0);
  const std::string dom = read_text(dir + "/dom.html");
  // 4 classes: 4 x 4 shaded counts, and a row of scores for each class.
  size_t counts = 0, rows = 0;
  for (size_t at = dom.find("title=\"true "); at != std::string::npos; at = dom.find("title=\"true ", at + 1)) ++counts;
  for (size_t at = dom.find("<tr><td>"); at != std::string::npos; at = dom.find("<tr><td>", at + 1))
    rows += std::isdigit(static_cast<unsigned char>(dom[at + 8])) ? 1 : 0;  // a class's scores, not the runs table
  CHECK(counts == 16);
  CHECK(rows == 4);
  CHECK_THAT(dom, Catch::Contains("<h2>Classes</h2>") && Catch::Contains("<th>true \\ predicted</th>"));
}
