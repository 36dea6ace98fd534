#include "tensorboard/tfrecord_writer.h"

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include "tensorboard/crc32c.h"
#include "util/error.h"

namespace trainer {
namespace {

void append_le(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFFu));
}

}  // namespace

std::string frame_tfrecord(const std::string& record) {
  std::string out;
  out.reserve(record.size() + 16);
  append_le(out, record.size(), 8);
  append_le(out, masked_crc32c(out.data(), 8), 4);
  out += record;
  append_le(out, masked_crc32c(record.data(), record.size()), 4);
  return out;
}

TfRecordWriter::TfRecordWriter(const std::string& path) : path_(path) {
  // O_EXCL: two writers never share a file (a resumed run starts a new one).
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw IoError("cannot create " + path + ": " + std::strerror(errno));
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    ::close(fd);
    throw IoError("cannot open " + path + ": " + std::strerror(errno));
  }
}

TfRecordWriter::~TfRecordWriter() {
  if (file_) std::fclose(file_);
}

void TfRecordWriter::write(const std::string& record) {
  const std::string framed = frame_tfrecord(record);
  if (std::fwrite(framed.data(), 1, framed.size(), file_) != framed.size() || std::fflush(file_) != 0)
    throw IoError("cannot write " + path_ + ": " + std::strerror(errno));
}

}  // namespace trainer
