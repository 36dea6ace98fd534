#pragma once
// A TensorBoard event file: events.out.tfevents.<time>.<host> in a folder,
// TFRecord-framed Event protocol buffers (event.proto). Torch-free; the
// protobuf types stay in the .cpp.
#include <cstdint>
#include <memory>
#include <string>

namespace trainer {

class TfRecordWriter;

struct EncodedImage {
  int height = 0;
  int width = 0;
  int channels = 0;  // 1 or 3
  std::string png;   // the PNG file's bytes
};

class EventWriter {
 public:
  // Creates a new event file in `folder` (which must exist); its first
  // record names the format version, as TensorFlow's writers do. Throws
  // IoError naming the file.
  explicit EventWriter(const std::string& folder);
  ~EventWriter();

  void scalar(const std::string& tag, int64_t step, double value);
  // Markdown text, shown by TensorBoard's text plugin.
  void text(const std::string& tag, int64_t step, const std::string& markdown);
  void image(const std::string& tag, int64_t step, const EncodedImage& image);
  // A resumed run starts again at `step`: TensorBoard drops the points an
  // earlier file holds from that step on (they were trained again).
  void restart(int64_t step);

  const std::string& path() const;

 private:
  void write_event(const std::string& serialized);
  std::unique_ptr<TfRecordWriter> file_;
};

// events.out.tfevents.<seconds since the epoch>.<host name>
std::string event_file_name(int64_t seconds, const std::string& host);

}  // namespace trainer
