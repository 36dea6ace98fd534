// Everything written as JSON parses back, whatever the strings in it hold.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "bench/matmul_report.h"
#include "bench/training_report.h"
#include "device/inventory_report.h"
#include "runs/epoch_log.h"
#include "util/json.h"

using namespace trainer;
using nlohmann::json;

namespace {

// Quotes, backslashes, control characters (tab, newline, \x01, DEL), Latin,
// CJK and a character outside the BMP (a surrogate pair when escaped).
const std::string kHostile = "my \"quoted\" exp \\ C:\\runs\\new\t\n\x01\x7f caf\xc3\xa9 \xe5\x90\x8d\xe5\x89\x8d \xf0\x9f\x98\x80";

json parse_line(const std::string& text) {
  REQUIRE_FALSE(text.empty());
  CHECK(text.back() == '\n');
  CHECK(text.find('\n') == text.size() - 1);  // one line: JSON Lines and `| jq` both need it
  return json::parse(text);
}

}  // namespace

TEST_CASE("JSON strings round-trip quotes, backslashes, control characters and non-ASCII text", "[util][json]") {
  const json back = parse_line(json_line(nlohmann::ordered_json{{"name", kHostile}, {kHostile, 1}}));
  CHECK(back.at("name") == kHostile);
  CHECK(back.at(kHostile) == 1);
}

TEST_CASE("bytes that are not UTF-8 become U+FFFD instead of failing or writing invalid JSON", "[util][json]") {
  const std::string latin1 = "caf\xe9";  // é in ISO-8859-1: not UTF-8
  const json back = parse_line(json_line(nlohmann::ordered_json{{"name", latin1}}));
  CHECK(back.at("name") == "caf\xef\xbf\xbd");
}

TEST_CASE("non-finite numbers are written as null, floats with the epoch log's nine digits", "[util][json]") {
  const double inf = std::numeric_limits<double>::infinity();
  const json back = parse_line(json_line(nlohmann::ordered_json{{"nan", json_number(std::nan(""))},
                                                                {"inf", json_number(-inf)},
                                                                {"nanf", json_number(std::nanf(""))},
                                                                {"tenth", json_number(0.1f)},
                                                                {"third", json_number(1.0 / 3)}}));
  CHECK(back.at("nan").is_null());
  CHECK(back.at("inf").is_null());
  CHECK(back.at("nanf").is_null());
  CHECK(json_line(json_number(0.1f)) == "0.100000001\n");
  CHECK(static_cast<float>(back.at("tenth").get<double>()) == 0.1f);
  CHECK(back.at("third").get<double>() == 1.0 / 3);  // doubles round-trip exactly
}

TEST_CASE("a metrics.jsonl line with a NaN loss still parses, the NaN as null", "[util][json][train]") {
  EpochRecord record;
  record.epoch = 4;
  record.train = {{"Loss", "loss", std::nanf("")}, {"Accuracy", "accuracy", 0.25f}};
  record.valid = {{"Loss", "loss", std::numeric_limits<float>::infinity()}};
  record.lr = 1e-3;
  record.steps = 10;
  const json back = parse_line(format_metrics_json(record));
  CHECK(back.at("epoch") == 4);
  CHECK(back.at("loss").is_null());
  CHECK(back.at("accuracy") == 0.25);
  CHECK(back.at("val_loss").is_null());
  CHECK(back.at("lr") == 1e-3);
  CHECK(back.at("data_wait_fraction") == 0);  // no training time: 0, not NaN
}

TEST_CASE("devices --json keeps hostile device and library names intact", "[util][json][device]") {
  DeviceInventory inventory;
  inventory.cpu.model = kHostile;
  inventory.cpu.isa = {"avx2", "fma"};
  inventory.gpus.push_back({0, kHostile, 80LL << 30, 70LL << 30, 9, 0});
  inventory.build.torch_version = "2.6.0";
  inventory.build.blas = kHostile;
  const json back = parse_line(format_inventory_json(inventory));
  CHECK(back.at("cpu").at("model") == kHostile);
  CHECK(back.at("cpu").at("isa") == json::array({"avx2", "fma"}));
  CHECK(back.at("cpu").at("bf16") == "emulated");  // no AVX-512-BF16 or AMX among them
  CHECK(back.at("gpus").at(0).at("name") == kHostile);
  CHECK(back.at("gpus").at(0).at("total_bytes") == (80LL << 30));
  CHECK(back.at("gpus").at(0).at("compute_capability") == "9.0");
  CHECK(back.at("build").at("blas") == kHostile);
  CHECK(back.at("build").at("cuda").is_null());
}

TEST_CASE("bench --json reports keep a hostile experiment name intact", "[util][json][bench]") {
  TrainingBenchResult training;
  training.experiment = kHostile;
  training.device = "cpu";
  training.precision = "fp32";
  training.batch_size = 32;
  training.steps = 0;  // no time measured: steps per second is NaN, written as null
  const json t = parse_line(format_training_bench_json(training));
  CHECK(t.at("experiment") == kHostile);
  CHECK(t.at("steps_per_second").is_null());
  CHECK(t.at("max_batch").is_null());

  MatmulResult matmul;
  matmul.device = kHostile;
  matmul.dtype = "fp32";
  matmul.repeats = 3;
  matmul.median_seconds = 0.5;
  matmul.best_seconds = 0.25;
  matmul.checksum = std::nan("");
  const json m = parse_line(format_matmul_json({matmul}));
  CHECK(m.at("results").at(0).at("device") == kHostile);
  CHECK(m.at("results").at(0).at("checksum").is_null());
  CHECK(m.at("results").at(0).at("peak_gflops").is_null());
  CHECK(m.at("results").at(0).at("gflops").get<double>() == Approx(2.0 * 10000 * 100 * 100000 / 0.5 / 1e9));
}
