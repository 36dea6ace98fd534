#include <catch2/catch.hpp>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "data/dataset.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;

TEST_CASE("Fashion-MNIST from Debian's package", "[data][fashion]") {
  if (!testing::have_fashion_mnist()) {
    WARN("SKIPPED: needs Debian's dataset-fashion-mnist (scripts/install-deps.sh installs it)");
    return;
  }
  DataConfig config;
  config.dataset = DatasetKind::kFashionMnist;
  const DataSplits data = load_dataset(config, 1);
  CHECK(data.train.size() == 60000);
  CHECK(data.valid.size() == 10000);
  CHECK(data.train.inputs.sizes() == torch::IntArrayRef({60000, 1, 28, 28}));
  CHECK(data.info.classes == 10);
  CHECK(data.train.inputs.min().item<float>() == 0.0f);
  CHECK(data.train.inputs.max().item<float>() == 1.0f);
  // Balanced classes: 6,000 of each in the training set.
  CHECK(torch::bincount(data.train.labels).eq(6000).all().item<bool>());
}

TEST_CASE("IDX folders with a missing or truncated file are data errors", "[data][fashion]") {
  const std::string dir = testing::fresh_dir("idx-broken");
  DataConfig config;
  config.dataset = DatasetKind::kMnist;
  config.path = dir;
  CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains(dir + "/train-images-idx3-ubyte"));

  auto write = [&](const std::string& name, const std::string& header, size_t values) {
    std::ofstream(dir + "/" + name, std::ios::binary) << header << std::string(values, '\x01');
  };
  write("train-images-idx3-ubyte", std::string("\0\0\x08\x03\0\0\0\x02\0\0\0\x02\0\0\0\x02", 16), 8);
  write("train-labels-idx1-ubyte", std::string("\0\0\x08\x01\0\0\0\x02", 8), 2);
  write("t10k-images-idx3-ubyte", std::string("\0\0\x08\x03\0\0\0\x02\0\0\0\x02\0\0\0\x02", 16), 5);  // short
  write("t10k-labels-idx1-ubyte", std::string("\0\0\x08\x01\0\0\0\x02", 8), 2);
  CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains("t10k-images-idx3-ubyte") && Catch::Contains("truncated"));
}

TEST_CASE("IDX folders whose content is wrong are data errors before training", "[data][fashion]") {
  const std::string dir = testing::fresh_dir("idx-wrong");
  DataConfig config;
  config.dataset = DatasetKind::kMnist;
  config.path = dir;
  const std::string images2x2("\0\0\x08\x03\0\0\0\x02\0\0\0\x02\0\0\0\x02", 16);
  const std::string labels2("\0\0\x08\x01\0\0\0\x02", 8);
  const auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
  };
  write("train-images-idx3-ubyte", images2x2 + std::string(8, '\x01'));
  write("train-labels-idx1-ubyte", labels2 + std::string("\x03\x09", 2));
  write("t10k-images-idx3-ubyte", images2x2 + std::string(8, '\x01'));
  write("t10k-labels-idx1-ubyte", labels2 + std::string("\x01\x02", 2));
  CHECK(load_dataset(config, 1).info.classes == 10);

  SECTION("a label past the ten classes names the file and index") {
    write("t10k-labels-idx1-ubyte", labels2 + std::string("\x01\xc8", 2));
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains(dir + "/t10k-labels-idx1-ubyte: label 200 at index 1 "
                                                               "is not one of the 10 classes"));
  }
  SECTION("test images of another size") {
    write("t10k-images-idx3-ubyte", std::string("\0\0\x08\x03\0\0\0\x02\0\0\0\x03\0\0\0\x03", 16) +
                                        std::string(18, '\x01'));
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains("the test images are 3x3, the training images 2x2"));
  }
  SECTION("sizes whose product overflows") {
    write("train-images-idx3-ubyte", std::string("\0\0\x08\x03\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 16));
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains("train-images-idx3-ubyte: the IDX header's sizes "
                                                               "multiply to more than 2^63"));
  }
  SECTION("a gzip'd file that inflates past its header's size stops there") {
    std::filesystem::remove(dir + "/train-images-idx3-ubyte");
    const std::string bomb = images2x2 + std::string(64 << 20, '\x01');  // 64 MiB where 8 bytes belong
    gzFile file = gzopen((dir + "/train-images-idx3-ubyte.gz").c_str(), "wb9");
    gzwrite(file, bomb.data(), static_cast<unsigned>(bomb.size()));
    gzclose(file);
    CHECK(std::filesystem::file_size(dir + "/train-images-idx3-ubyte.gz") < 200000);
    // Refused from the gzip trailer, before inflating a byte of it.
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains("train-images-idx3-ubyte.gz: its IDX header describes 24 "
                                                               "bytes but the gzip data holds 67108880"));
    // A forged trailer: inflating still stops at the header's size.
    std::ifstream in(dir + "/train-images-idx3-ubyte.gz", std::ios::binary);
    std::string gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    in.close();
    gz.replace(gz.size() - 4, 4, std::string("\x18\0\0\0", 4));
    std::ofstream(dir + "/train-images-idx3-ubyte.gz", std::ios::binary) << gz;
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains("train-images-idx3-ubyte.gz: decompresses to more "
                                                               "than 24 bytes, the size its IDX header describes"));
  }
  SECTION("a header claiming 65536 x 65536 images is checked against the file before anything is allocated") {
    write("train-images-idx3-ubyte", std::string("\0\0\x08\x03\0\0\0\x01\0\x01\0\0\0\x01\0\0", 16) + std::string(8, '\x01'));
    CHECK_FALSE(preview_dataset(config).has_value());  // no model is built from such sizes
    CHECK_THROWS_WITH(load_dataset(config, 1),
                      Catch::Contains(dir + "/train-images-idx3-ubyte: its IDX header describes 4294967312 bytes but the "
                                            "file holds 24 (truncated, or a corrupt header)"));
  }
  SECTION("an element type is shown in hex") {
    write("train-images-idx3-ubyte", std::string("\0\0\x0d\x03\0\0\0\x02\0\0\0\x02\0\0\0\x02", 16));
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains("IDX element type 0x0D is not supported"));
  }
}

namespace {

void check_preview_matches(const DataConfig& config) {
  const std::optional<DataInfo> preview = preview_dataset(config);
  REQUIRE(preview.has_value());
  const DataInfo loaded = load_dataset(config, 1).info;
  CHECK(preview->name == loaded.name);
  CHECK(preview->input_shape == loaded.input_shape);
  CHECK(preview->token_inputs == loaded.token_inputs);
  CHECK(preview->vocabulary == loaded.vocabulary);
  CHECK(preview->classes == loaded.classes);
}

}  // namespace

TEST_CASE("the data's preview says what loading will", "[data][preview]") {
  SECTION("synthetic images and tokens") {
    DataConfig config;
    config.dataset = DatasetKind::kSynthetic;
    config.synthetic.shape = {3, 5, 7};
    config.synthetic.classes = 4;
    check_preview_matches(config);
    config.synthetic.shape = {12};
    config.synthetic.vocabulary = 50;
    check_preview_matches(config);
  }
  SECTION("IDX files of any image size, from the header") {
    const std::string dir = testing::fresh_dir("idx-preview");
    const std::string images("\0\0\x08\x03\0\0\0\x02\0\0\0\x03\0\0\0\x05", 16);  // 2 images of 3 x 5
    const std::string labels("\0\0\x08\x01\0\0\0\x02", 8);
    for (const std::string split : {"train", "t10k"}) {
      std::ofstream(dir + "/" + split + "-images-idx3-ubyte", std::ios::binary) << images << std::string(30, '\x01');
      std::ofstream(dir + "/" + split + "-labels-idx1-ubyte", std::ios::binary) << labels << std::string(2, '\x01');
    }
    DataConfig config;
    config.dataset = DatasetKind::kMnist;
    config.path = dir;
    check_preview_matches(config);
    CHECK(preview_dataset(config)->input_shape == std::vector<int64_t>{1, 3, 5});
    // Files that cannot be read: no preview; loading says why.
    std::filesystem::remove(dir + "/train-images-idx3-ubyte");
    CHECK_FALSE(preview_dataset(config).has_value());
  }
  SECTION("reuters: from the config alone, without reading or downloading") {
    DataConfig config;
    config.dataset = DatasetKind::kReuters;
    config.path = "/nonexistent/reuters.npz";
    config.sequence_length = 0;
    CHECK_FALSE(preview_dataset(config).has_value());  // the longest newswire decides the length
    config.sequence_length = 120;
    config.num_words = 1000;
    const auto preview = preview_dataset(config);
    REQUIRE(preview.has_value());
    CHECK(preview->input_shape == std::vector<int64_t>{120});
    CHECK(preview->token_inputs);
    CHECK(preview->vocabulary == 1000);
    CHECK(preview->classes == 46);
  }
}

TEST_CASE("the Reuters preview says what reading the corpus will", "[data][preview][corpus]") {
  if (!testing::have_reuters_corpus()) {
    WARN(testing::kNeedsReutersCorpus);
    return;
  }
  DataConfig config;
  config.dataset = DatasetKind::kReuters;
  config.path = testing::reuters_corpus_dir();
  config.sequence_length = 80;
  config.num_words = 5000;
  check_preview_matches(config);
}

TEST_CASE("synthetic data is seeded and learnable", "[data][synthetic]") {
  DataConfig config;
  config.dataset = DatasetKind::kSynthetic;
  config.synthetic.shape = {6};
  config.synthetic.classes = 3;
  const auto a = load_dataset(config, 5), b = load_dataset(config, 5), c = load_dataset(config, 6);
  CHECK(torch::equal(a.train.inputs, b.train.inputs));
  CHECK_FALSE(torch::equal(a.train.inputs, c.train.inputs));
  CHECK(a.train.labels.max().item<int64_t>() == 2);
  SECTION("token inputs for embeddings") {
    config.synthetic.vocabulary = 50;
    config.max_train_samples = 100;
    const auto t = load_dataset(config, 5);
    CHECK(t.info.token_inputs);
    CHECK(t.train.size() == 100);
    CHECK(t.train.inputs.scalar_type() == torch::kInt64);
    CHECK(t.train.inputs.max().item<int64_t>() < 50);
  }
}
