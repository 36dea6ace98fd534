#pragma once
// Appends TFRecord records to a file: the framing TensorFlow event files use.
//   uint64 length, uint32 masked CRC-32C of those 8 bytes, the data,
//   uint32 masked CRC-32C of the data; all little-endian.
// Each record is flushed as written, so a reader (TensorBoard) sees it at
// once and a crash loses at most the record being written, which readers
// skip as a truncated tail.
#include <cstdio>
#include <string>

namespace trainer {

// `record` framed, as the bytes written to the file.
std::string frame_tfrecord(const std::string& record);

class TfRecordWriter {
 public:
  // Creates `path`, which must not exist. Throws IoError naming it.
  explicit TfRecordWriter(const std::string& path);
  ~TfRecordWriter();
  TfRecordWriter(const TfRecordWriter&) = delete;
  TfRecordWriter& operator=(const TfRecordWriter&) = delete;

  // Throws IoError naming the file when the disk refuses.
  void write(const std::string& record);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace trainer
