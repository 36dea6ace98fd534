// The report's classes section: read from metrics.jsonl's newest epoch that
// recorded them, named from run.json, drawn as a heat map and a table.
#include <catch2/catch.hpp>

#include "report/class_report.h"

using namespace trainer;

namespace {

const char* kEpochWithClasses =
    R"({"epoch":2,"val_loss":0.5,"val_f1":0.6,"val_confusion_matrix":[[3,1],[0,4]],)"
    R"("val_per_class":{"precision":[1.0,0.8],"recall":[0.75,1.0],"f1":[0.857,0.889],"support":[4,4]}})";

}  // namespace

TEST_CASE("the class report is the newest epoch that recorded its classes", "[report][classes]") {
  const std::string older =
      R"({"epoch":1,"val_confusion_matrix":[[1,3],[2,2]],"val_per_class":{"precision":[0.33,0.4],"recall":[0.25,0.5],"f1":[0.29,0.44],"support":[4,4]}})";
  const std::string metrics = older + "\n" + kEpochWithClasses + "\n" + R"({"epoch":3,"val_loss":0.4})" + "\n";
  const auto report = read_class_report(metrics, R"({"class_names":["cat","dog"]})");
  REQUIRE(report);
  CHECK(report->epoch == 2);
  CHECK(report->confusion == std::vector<std::vector<int64_t>>{{3, 1}, {0, 4}});
  CHECK(report->names == std::vector<std::string>{"cat", "dog"});
  CHECK(report->recall == std::vector<double>{0.75, 1.0});
  CHECK(report->support == std::vector<int64_t>{4, 4});
}

TEST_CASE("classes without names are numbered, and a record that is not whole is passed over", "[report][classes]") {
  const auto unnamed = read_class_report(kEpochWithClasses, "");
  REQUIRE(unnamed);
  CHECK(unnamed->names == std::vector<std::string>{"0", "1"});
  // Names for another number of classes are not used.
  CHECK(read_class_report(kEpochWithClasses, R"({"class_names":["a","b","c"]})")->names[1] == "1");
  CHECK_FALSE(read_class_report(R"({"epoch":1,"val_loss":0.5})", ""));
  CHECK_FALSE(read_class_report(R"({"epoch":1,"val_confusion_matrix":[[1,2],[3]],"val_per_class":{}})", ""));
  CHECK_FALSE(read_class_report(
      R"({"epoch":1,"val_confusion_matrix":[[1,0],[0,1]],"val_per_class":{"precision":[1,1],"recall":[1,1],"f1":[1,1]}})",
      ""));
}

TEST_CASE("the class report draws each count, shaded by its row's share, and each class's scores", "[report][classes]") {
  const auto report = read_class_report(kEpochWithClasses, R"({"class_names":["cat","<dog>"]})");
  REQUIRE(report);
  const std::string html = render_class_report(*report, "");
  CHECK(html.find("validation of epoch 2") != std::string::npos);
  // The whole row of "dog" is right: the darkest shade; 1 of cat's 4 a light one.
  CHECK(html.find("background:#1f77b4;color:#fff\" title=\"true &lt;dog&gt;, predicted &lt;dog&gt;: 4\">4<") !=
        std::string::npos);
  CHECK(html.find("title=\"true cat, predicted &lt;dog&gt;: 1\">1<") != std::string::npos);
  CHECK(html.find("<td>cat</td><td>1.000</td><td>0.750</td><td>0.857</td><td>4</td>") != std::string::npos);
}
