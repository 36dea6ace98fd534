// The documentation a user reads: README.md and docs/. Links must lead
// somewhere, every doc must be reachable from the README, and the experiment
// file the README shows must be one the binary accepts.
#include <catch2/catch.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"

using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> documents() {
  std::vector<fs::path> docs{fs::path(source_dir()) / "README.md"};
  for (const auto& entry : fs::directory_iterator(fs::path(source_dir()) / "docs"))
    if (entry.path().extension() == ".md") docs.push_back(entry.path());
  return docs;
}

// A heading's anchor as GitHub makes it: lower case, spaces to hyphens,
// other punctuation dropped ("`trainer bench` and BLAS" -> "trainer-bench-and-blas").
std::string anchor_of(const std::string& heading) {
  std::string anchor;
  for (const unsigned char c : heading) {
    if (std::isalnum(c) || c == '_' || c == '-') anchor += static_cast<char>(std::tolower(c));
    else if (c == ' ') anchor += '-';
  }
  return anchor;
}

std::set<std::string> anchors_in(const std::string& text) {
  std::set<std::string> anchors;
  const std::regex heading(R"(^#+ +(.*)$)", std::regex::multiline);
  for (std::sregex_iterator it(text.begin(), text.end(), heading), end; it != end; ++it)
    anchors.insert(anchor_of((*it)[1].str()));
  return anchors;
}

struct Link {
  std::string target, anchor;
};

// Relative links [text](path#anchor); web addresses are not followed.
std::vector<Link> links_in(const std::string& text) {
  std::vector<Link> links;
  const std::regex link(R"(\]\(([^)\s]+)\))");
  for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
    const std::string href = (*it)[1].str();
    if (href.rfind("http://", 0) == 0 || href.rfind("https://", 0) == 0 || href.rfind("mailto:", 0) == 0) continue;
    const auto hash = href.find('#');
    links.push_back({href.substr(0, hash), hash == std::string::npos ? "" : href.substr(hash + 1)});
  }
  return links;
}

// The text of the fenced block that follows `marker` (which ends with its opening fence).
std::string block_after(const std::string& text, const std::string& marker) {
  const auto from = text.find(marker);
  REQUIRE(from != std::string::npos);
  const auto to = text.find("```", from + marker.size());
  REQUIRE(to != std::string::npos);
  return text.substr(from + marker.size(), to - from - marker.size());
}

}  // namespace

TEST_CASE("every link in the README and docs/ leads to a file and a heading that exist", "[docs]") {
  int checked = 0;
  for (const auto& doc : documents()) {
    const std::string text = read_text(doc.string());
    for (const auto& link : links_in(text)) {
      const fs::path target = link.target.empty() ? doc : doc.parent_path() / link.target;
      INFO(doc.filename().string() << " links to " << link.target << (link.anchor.empty() ? "" : "#" + link.anchor));
      REQUIRE(fs::exists(target));
      if (!link.anchor.empty()) CHECK(anchors_in(read_text(target.string())).count(link.anchor) == 1);
      ++checked;
    }
  }
  CHECK(checked >= 10);  // the README's table of documents alone has 8
}

TEST_CASE("documents and sections that messages and comments name exist", "[docs]") {
  // "docs/devices.md", "docs/development.md, 'Building'", "README 'Exit codes'", "README.md#exit-codes".
  const std::regex reference(R"((README(\.md)?|docs/[a-z0-9_-]+\.md)(#[a-z0-9_-]+)?(,? ['"]([A-Za-z][^'"\n]*)['"])?)");
  int checked = 0;
  for (const char* folder : {"lib", "apps"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(source_dir()) / folder)) {
      const std::string extension = entry.path().extension().string();
      if (extension != ".cpp" && extension != ".h") continue;
      const std::string text = read_text(entry.path().string());
      for (std::sregex_iterator it(text.begin(), text.end(), reference), end; it != end; ++it) {
        const std::string file = (*it)[1].str() == "README" ? "README.md" : (*it)[1].str();
        const fs::path target = fs::path(source_dir()) / file;
        INFO(entry.path().filename().string() << " names " << it->str());
        REQUIRE(fs::exists(target));
        const auto anchors = anchors_in(read_text(target.string()));
        if ((*it)[3].matched) CHECK(anchors.count((*it)[3].str().substr(1)) == 1);
        if ((*it)[5].matched) CHECK(anchors.count(anchor_of((*it)[5].str())) == 1);
        ++checked;
      }
    }
  }
  CHECK(checked >= 5);
}

TEST_CASE("the README links every document in docs/", "[docs]") {
  const std::string readme = read_text(source_dir() + "/README.md");
  std::set<std::string> linked;
  for (const auto& link : links_in(readme)) linked.insert(fs::path(link.target).lexically_normal().string());
  for (const auto& doc : documents()) {
    if (doc.filename() == "README.md") continue;
    INFO(doc.filename().string());
    CHECK(linked.count("docs/" + doc.filename().string()) == 1);
  }
}

TEST_CASE("the experiment file shown in the README is valid", "[docs][e2e]") {
  const std::string readme = read_text(source_dir() + "/README.md");
  const std::string dir = fresh_dir("readme-example");
  std::ofstream(dir + "/example.yaml") << block_after(readme, "<!-- example-experiment -->\n```yaml\n") << "\n";
  const auto result = run_trainer({"config", dir + "/example.yaml"}, dir);
  INFO(result.err);
  CHECK(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("name: reuters_conv1d") && Catch::Contains("nadam"));
}

TEST_CASE("the DeblurGAN generator and its summary in docs/models.md are the program's", "[docs][e2e]") {
  const std::string doc = read_text(source_dir() + "/docs/models.md");
  const std::string layers = block_after(doc, "<!-- deblur-generator -->\n```yaml\n");
  const std::string tested = read_text(source_dir() + "/tests/models/deblur_generator.yaml");
  CHECK(tested.substr(tested.find("model:")) == layers);
  const std::string dir = fresh_dir("docs-deblur");
  std::ofstream(dir + "/g.yaml") << "experiment: {name: deblur_generator}\ndata:\n  dataset: synthetic\n"
                                    "  synthetic: {shape: [3, 256, 256]}\nloss: {name: mse}\n"
                                 << layers;
  const auto result = run_trainer({"summary", dir + "/g.yaml"}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(result.out == block_after(doc, "<!-- deblur-summary -->\n```text\n"));
}

TEST_CASE("docs/development.md's layout names every folder of lib/ and tests/, and no other", "[docs]") {
  const std::string text = read_text(source_dir() + "/docs/development.md");
  const size_t begin = text.find("## Layout");
  REQUIRE(begin != std::string::npos);
  const size_t block = text.find("```", begin);
  const std::string layout = text.substr(block, text.find("```", block + 3) - block);
  const std::regex entry(R"(\n(lib/[a-z_]+) )");
  std::set<std::string> listed;
  for (std::sregex_iterator it(layout.begin(), layout.end(), entry), end; it != end; ++it) listed.insert((*it)[1]);
  std::set<std::string> folders;
  for (const auto& dir : fs::directory_iterator(fs::path(source_dir()) / "lib"))
    if (dir.is_directory()) folders.insert("lib/" + dir.path().filename().string());
  CHECK(listed == folders);
  // tests/ mirrors lib/: a folder of tests for each folder of code; the
  // others (end to end, fuzzing, the CUDA emulation) the layout names.
  for (const auto& dir : fs::directory_iterator(fs::path(source_dir()) / "tests")) {
    if (!dir.is_directory()) continue;
    const std::string name = dir.path().filename().string();
    INFO("tests/" << name);
    CHECK((folders.count("lib/" + name) == 1 || layout.find("tests/" + name + "/") != std::string::npos));
  }
}

TEST_CASE("docs/deblurring.md lists every photograph deblur-photos.sh --more gathers, with its licence", "[docs]") {
  const std::string doc = read_text(source_dir() + "/docs/deblurring.md");
  const size_t table = doc.find("<!-- deblur-more-photos -->");
  REQUIRE(table != std::string::npos);
  std::ifstream manifest(source_dir() + "/scripts/deblur-photos-more.tsv");
  REQUIRE(manifest);
  std::string line;
  int photos = 0, held_out = 0;
  while (std::getline(manifest, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream row(line);
    for (std::string field; std::getline(row, field, '\t');) fields.push_back(field);
    INFO(line);
    REQUIRE(fields.size() == 5);
    CHECK((fields[2] == "train" || fields[2] == "valid"));
    // The row names the package, the file, the split and the licence.
    CHECK(doc.find("| `" + fields[0] + "`: `" + fields[1] + "` | " + fields[2] + " | " + fields[3] + " |", table) !=
          std::string::npos);
    ++photos;
    held_out += fields[2] == "valid";
  }
  // With the base set's 27 (5 held out): at least 100 photos, 20 held out.
  CHECK(photos + 27 >= 100);
  CHECK(held_out + 5 >= 20);
}
