// A batchnorm that reads one value a channel cannot train on a batch of one
// sample; a run whose batches would give some rank one is refused before it
// starts, naming the layer and batch sizes that would do.
#include <catch2/catch.hpp>

#include "models/model.h"
#include "models/model_fixtures.h"
#include "train/batch_of_one.h"
#include "util/error.h"

using namespace trainer;
using trainer::testing::feature_rows;
using trainer::testing::images;
using trainer::testing::model_of;

namespace {

TrainConfig batches_of(int64_t batch_size, int64_t steps_per_epoch = 0) {
  TrainConfig train;
  train.batch_size.value = batch_size;
  train.steps_per_epoch = steps_per_epoch;
  return train;
}

const char* kDenseBatchnorm = "[{type: dense, units: 8}, {type: batchnorm}, {type: dense, units: classes}]";

}  // namespace

TEST_CASE("a batchnorm over one value a channel refuses the batches that leave a rank one sample",
          "[train][batchnorm]") {
  const Model model = build_model(model_of(kDenseBatchnorm), feature_rows(8, 3));
  REQUIRE(model.batch_of_one_refused_by == "model.layers[1] (batchnorm)");
  SECTION("one process: the epoch's last batch") {
    CHECK_THROWS_AS(check_no_batch_of_one(model, batches_of(32), 33, 1), ConfigError);
    CHECK_THROWS_WITH(check_no_batch_of_one(model, batches_of(32), 33, 1),
                      Catch::Contains("train.batch_size: 32 over 33 training samples leaves the epoch's last batch "
                                      "1 sample, and model.layers[1] (batchnorm) cannot train on one") &&
                          Catch::Contains("(33 or 31)"));
    CHECK_NOTHROW(check_no_batch_of_one(model, batches_of(32), 34, 1));
    CHECK_NOTHROW(check_no_batch_of_one(model, batches_of(33), 33, 1));
    CHECK_NOTHROW(check_no_batch_of_one(model, batches_of(32), 32, 1));
    // train.steps_per_epoch: 1 never reaches the short batch.
    CHECK_NOTHROW(check_no_batch_of_one(model, batches_of(32, 1), 33, 1));
    CHECK_THROWS_WITH(check_no_batch_of_one(model, batches_of(1), 33, 1),
                      Catch::Contains("train.batch_size: 1 makes every batch 1 sample") && Catch::Contains("(3 or 5)"));
  }
  SECTION("ranks: each one's share of the last step") {
    // 33 over 2 ranks of 16: the last step's one sample goes to rank 0.
    CHECK_THROWS_WITH(check_no_batch_of_one(model, batches_of(16), 33, 2),
                      Catch::Contains("and 2 ranks leaves rank 0 a batch of 1 sample (its share of the last "
                                      "step's 1)"));
    // 34: the last step's two samples split one a rank.
    CHECK_THROWS_WITH(check_no_batch_of_one(model, batches_of(16), 34, 2), Catch::Contains("last step's 2"));
    CHECK_NOTHROW(check_no_batch_of_one(model, batches_of(16), 36, 2));
    CHECK_NOTHROW(check_no_batch_of_one(model, batches_of(16), 32, 2));
  }
}

TEST_CASE("batchnorms that see more than one value a channel, or do not train, take a batch of one",
          "[train][batchnorm]") {
  CHECK(build_model(model_of("[{type: batchnorm}, {type: flatten}, {type: dense, units: classes}]"), images(2, 4, 4, 3))
            .batch_of_one_refused_by.empty());
  CHECK(build_model(model_of("[{type: dense, units: 8}, {type: batchnorm, trainable: false}, {type: dense, units: "
                             "classes}]"),
                    feature_rows(8, 3))
            .batch_of_one_refused_by.empty());
  const Model plain = build_model(model_of("[{type: dense, units: classes}]"), feature_rows(8, 3));
  CHECK_NOTHROW(check_no_batch_of_one(plain, batches_of(32), 33, 1));
}
