#include <catch2/catch.hpp>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "data/batch_feed.h"
#include "data/batch_loader.h"
#include "data/data_placement.h"
#include "data/dataset.h"
#include "data/sampler.h"
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

TEST_CASE("epoch order: a seeded permutation that changes every epoch", "[data][sampler]") {
  const auto first = epoch_order(1000, 42, 1, true);
  CHECK(first == epoch_order(1000, 42, 1, true));
  CHECK(first != epoch_order(1000, 42, 2, true));
  CHECK(first != epoch_order(1000, 43, 1, true));
  CHECK(std::set<int64_t>(first.begin(), first.end()).size() == 1000);
  const auto plain = epoch_order(5, 42, 1, false);
  CHECK(plain == std::vector<int64_t>{0, 1, 2, 3, 4});
}

namespace {

// Fails on sample 5: with the given error, as a loader thread sees it.
template <typename Failure>
class FailingSource : public SampleSource {
 public:
  std::pair<torch::Tensor, torch::Tensor> assemble(const int64_t* ids, int64_t count, int64_t) const override {
    for (int64_t i = 0; i < count; ++i)
      if (ids[i] == 5) throw Failure("sample 5 failed");
    auto rows = torch::zeros({count, 1});
    return {rows, rows};
  }
};

template <typename Failure>
TensorDataset failing_data() {
  const auto ids = torch::arange(20, torch::kInt64);
  return {ids, ids, std::make_shared<FailingSource<Failure>>()};
}

}  // namespace

TEST_CASE("a loader thread's failure reaches next(): out of memory stays out of memory", "[data][loader]") {
  LoaderOptions options;
  options.batch_size = 4;
  options.workers = 2;
  const std::vector<int64_t> order = epoch_order(20, 1, 1, false);
  SECTION("past the memory budget: OutOfMemoryError, exit code 6, whichever thread allocated") {
    const auto data = failing_data<OutOfMemoryError>();
    BatchLoader loader(data, order, options);
    CHECK(loader.next().has_value());  // samples 0-3
    CHECK_THROWS_AS(loader.next(), OutOfMemoryError);
  }
  SECTION("any other failure: a data error naming the batch") {
    const auto data = failing_data<std::runtime_error>();
    BatchLoader loader(data, order, options);
    CHECK(loader.next().has_value());
    CHECK_THROWS_WITH(loader.next(), Catch::Contains("assembling batch 1 failed: sample 5 failed"));
    BatchLoader again(data, order, options);
    CHECK(again.next().has_value());
    CHECK_THROWS_AS(again.next(), DataError);
  }
}

TEST_CASE("the prefetching loader hands out every batch in order", "[data][loader]") {
  TensorDataset data{torch::arange(103, torch::kFloat32).unsqueeze(1), torch::arange(103, torch::kInt64)};
  const auto order = epoch_order(103, 1, 1, true);
  for (int64_t workers : {1, 3}) {
    LoaderOptions options;
    options.batch_size = 10;
    options.workers = workers;
    options.prefetch = 2;
    BatchLoader loader(data, order, options);
    CHECK(loader.batch_count() == 11);
    std::vector<int64_t> seen;
    while (auto batch = loader.next()) {
      CHECK(torch::equal(batch->inputs.squeeze(1).to(torch::kInt64), batch->labels));
      for (int64_t i = 0; i < batch->size(); ++i) seen.push_back(batch->labels[i].item<int64_t>());
    }
    CHECK(seen == order);  // the last batch holds the remaining 3
  }
  SECTION("max_batches cuts the epoch short; destruction mid-epoch does not hang") {
    LoaderOptions options;
    options.batch_size = 10;
    options.max_batches = 4;
    BatchLoader loader(data, order, options);
    CHECK(loader.batch_count() == 4);
    CHECK(loader.next().has_value());
  }
}

namespace {

// The batches a feed hands out, as host tensors, in order.
std::vector<Batch> fed_batches(const TensorDataset& data, const std::vector<int64_t>& order,
                               const LoaderOptions& options, const torch::Device& device) {
  BatchFeed feed(data, order, options, device);
  std::vector<Batch> batches;
  while (auto batch = feed.next()) {
    CHECK(batch->inputs.device() == device);
    batches.push_back({batch->inputs.cpu(), batch->labels.cpu()});
  }
  CHECK(static_cast<int64_t>(batches.size()) == feed.batch_count());
  return batches;
}

void check_same_batches(const std::vector<Batch>& got, const std::vector<Batch>& expected) {
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CHECK(torch::equal(got[i].inputs, expected[i].inputs));
    CHECK(torch::equal(got[i].labels, expected[i].labels));
  }
}

TensorDataset counting_data(int64_t samples) {
  return {torch::arange(samples * 3, torch::kFloat32).reshape({samples, 3}), torch::arange(samples, torch::kInt64)};
}

}  // namespace

TEST_CASE("the batch feed hands a CPU step the loader's batches, cut the same way", "[data][feed]") {
  const TensorDataset data = counting_data(53);
  const auto order = epoch_order(53, 3, 2, true);
  LoaderOptions options;
  options.batch_sizes = {10, 10, 10, 10, 10, 3};
  options.max_batches = 5;
  BatchLoader loader(data, order, options);
  std::vector<Batch> expected;
  while (auto batch = loader.next()) expected.push_back(*batch);
  REQUIRE(expected.size() == 5);
  check_same_batches(fed_batches(data, order, options, torch::kCPU), expected);
}

TEST_CASE("data.on_device keeps a CPU run's data where it is and says nothing", "[data][feed]") {
  DataSplits data{counting_data(8), counting_data(4), {}};
  CHECK(place_data(data, DataPlacement::kDevice, torch::kCPU, 1 << 30).empty());
  CHECK(data.train.inputs.device().is_cpu());
  CHECK(held_bytes(data.train) == 8 * 3 * 4 + 8 * 8);
}

TEST_CASE("GPU: batches gathered on the GPU or copied ahead from pinned memory are the loader's", "[data][feed][gpu]") {
  if (!torch::cuda::is_available()) {
    WARN("SKIPPED: needs a CUDA GPU");
    return;
  }
  const torch::Device gpu(torch::kCUDA, 0);
  const TensorDataset host = counting_data(1001);
  const auto order = epoch_order(1001, 5, 1, true);
  LoaderOptions options;
  options.batch_size = 64;
  options.workers = 2;
  BatchLoader loader(host, order, options);
  std::vector<Batch> expected;
  while (auto batch = loader.next()) expected.push_back(*batch);
  // From host memory: pinned batches on a copy stream, one ahead.
  check_same_batches(fed_batches(host, order, options, gpu), expected);
  // Held on the GPU (what data.on_device does), the budget deciding.
  DataSplits splits{counting_data(1001), counting_data(10), {}};
  const std::string placed = place_data(splits, DataPlacement::kAuto, gpu, int64_t{1} << 30);
  CHECK_THAT(placed, Catch::Contains("held on gpu:0"));
  REQUIRE(held_on_device(splits.train, gpu));
  check_same_batches(fed_batches(splits.train, order, options, gpu), expected);
  // Too large for a quarter of the budget: kept in host memory.
  DataSplits large{counting_data(1001), counting_data(10), {}};
  CHECK_THAT(place_data(large, DataPlacement::kAuto, gpu, 4096), Catch::Contains("kept in host memory"));
  CHECK_FALSE(held_on_device(large.train, gpu));
}
