// The TensorBoard writer: CRC-32C against published vectors, TFRecord
// framing, and event files decoded by Python's protobuf with the same
// event.proto, its framing and CRCs checked by a reader written from the
// format's definition (tests/tensorboard/read_events.py).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "images/image_codec.h"
#include "tensorboard/crc32c.h"
#include "tensorboard/event_writer.h"
#include "tensorboard/tfrecord_writer.h"
#include "tensorboard/python_event_reader.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;
using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

uint32_t read_le32(const std::string& bytes, size_t at) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[at + static_cast<size_t>(i)]);
  return value;
}

}  // namespace

TEST_CASE("CRC-32C matches the published check values", "[tensorboard]") {
  const std::string digits = "123456789";
  CHECK(crc32c(digits.data(), digits.size()) == 0xE3069283u);
  // RFC 3720, appendix B.4.
  const std::string zeros(32, '\0'), ones(32, '\xff');
  CHECK(crc32c(zeros.data(), zeros.size()) == 0x8A9136AAu);
  CHECK(crc32c(ones.data(), ones.size()) == 0x62A8AB43u);
  // The mask of TFRecord: rotate right by 15, add a constant.
  CHECK(masked_crc32c("", 0) == 0xA282EAD8u);
}

TEST_CASE("a TFRecord frame is length, its masked CRC, the data and its masked CRC", "[tensorboard]") {
  const std::string record = "an event";
  const std::string frame = frame_tfrecord(record);
  REQUIRE(frame.size() == record.size() + 16);
  CHECK(static_cast<unsigned char>(frame[0]) == record.size());
  for (size_t i = 1; i < 8; ++i) CHECK(frame[i] == '\0');
  CHECK(read_le32(frame, 8) == masked_crc32c(frame.data(), 8));
  CHECK(frame.substr(12, record.size()) == record);
  CHECK(read_le32(frame, 12 + record.size()) == masked_crc32c(record.data(), record.size()));
}

TEST_CASE("an event file decodes with protobuf: version, scalars, text, images, restarts", "[tensorboard]") {
  if (!system_python_has("google.protobuf")) {
    WARN(kNeedsPythonProtobuf);
    return;
  }
  const std::string dir = fresh_dir("tensorboard-writer");
  std::string path;
  {
    EventWriter writer(dir);
    path = writer.path();
    writer.scalar("step/loss", 10, 0.5);
    writer.scalar("step/loss", 20, 0.25);
    writer.text("config", 0, "    experiment: {name: x}\n");
    Image image{2, 3, 3, std::vector<uint8_t>(18, 200)};
    writer.image("images/valid-0/output", 20, {2, 3, 3, encode_png(image, "test")});
    writer.restart(21);
  }
  CHECK(fs::path(path).filename().string().rfind("events.out.tfevents.", 0) == 0);
  const auto read = python_reads_events(path);
  REQUIRE(read.has_value());
  const nlohmann::json& events = *read;
  INFO(events.dump());
  CHECK(events["records"] == 6);
  CHECK(events["file_version"] == "brain.Event:2");
  CHECK(events["scalars"]["step/loss"] == nlohmann::json::parse("[[10, 0.5], [20, 0.25]]"));
  CHECK(events["texts"]["config"] == "    experiment: {name: x}\n");
  const auto& image = events["images"]["images/valid-0/output"];
  REQUIRE(image.size() == 1);
  CHECK(image[0][0] == 20);
  CHECK(image[0][1] == 2);  // height
  CHECK(image[0][2] == 3);  // width
  CHECK(image[0][3] == 3);  // RGB
  CHECK(image[0][4].get<int>() > 0);  // a PNG
  CHECK(events["restarts"] == nlohmann::json::parse("[21]"));
}

TEST_CASE("a damaged event file is refused by the independent reader", "[tensorboard]") {
  if (!system_python_has("google.protobuf")) {
    WARN(kNeedsPythonProtobuf);
    return;
  }
  const std::string dir = fresh_dir("tensorboard-damaged");
  std::string path;
  {
    EventWriter writer(dir);
    path = writer.path();
    writer.scalar("step/loss", 1, 1.0);
  }
  std::string bytes = read_text(path);
  bytes[bytes.size() - 6] ^= 0x01;  // inside the last record's data
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  CHECK_FALSE(python_reads_events(path).has_value());
}

TEST_CASE("two writers in one folder never share a file, and an unwritable folder is an I/O error", "[tensorboard]") {
  const std::string dir = fresh_dir("tensorboard-two");
  EventWriter first(dir), second(dir);
  CHECK(first.path() != second.path());
  CHECK_THROWS_AS(EventWriter(dir + "/missing"), IoError);
  CHECK_THROWS_WITH(EventWriter(dir + "/missing"), Catch::Contains(dir + "/missing/events.out.tfevents."));
}
