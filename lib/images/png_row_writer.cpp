#include "images/png_row_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "images/png_errors.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace trainer {

// libpng's state for one file, with the errno of a failed write.
struct PngRowWriter::State : PngErrors {
  std::string name;  // in messages: the file the user named, not the temporary
  std::FILE* file = nullptr;
  png_structp png = nullptr;
  png_infop info = nullptr;
  int64_t width = 0, height = 0, channels = 0, written = 0;
  int write_errno = 0;
  ~State() {
    if (png) png_destroy_write_struct(&png, info ? &info : nullptr);
    if (file) std::fclose(file);
  }
};

namespace {

using State = PngRowWriter::State;

void png_sink(png_structp png, png_bytep data, size_t count) {
  auto* state = static_cast<State*>(png_get_io_ptr(png));
  if (std::fwrite(data, 1, count, state->file) != count) {
    state->write_errno = errno;
    png_error(png, "write failed");
  }
}

void png_flush(png_structp png) {
  auto* state = static_cast<State*>(png_get_io_ptr(png));
  if (std::fflush(state->file) != 0) {
    state->write_errno = errno;
    png_error(png, "write failed");
  }
}

// The functions that call libpng hold no C++ object of their own, as its
// errors longjmp back to them. Each returns false with the message set.
bool write_header(State& s) {
  if (setjmp(png_jmpbuf(s.png))) return false;
  png_set_write_fn(s.png, &s, png_sink, png_flush);
  png_set_IHDR(s.png, s.info, static_cast<png_uint_32>(s.width), static_cast<png_uint_32>(s.height), 8,
               s.channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(s.png, s.info);
  return true;
}

bool write_rows(State& s, const uint8_t* rows, int64_t count) {
  if (setjmp(png_jmpbuf(s.png))) return false;
  const size_t row_bytes = static_cast<size_t>(s.width * s.channels);
  for (int64_t i = 0; i < count; ++i) png_write_row(s.png, rows + static_cast<size_t>(i) * row_bytes);
  return true;
}

bool write_end(State& s) {
  if (setjmp(png_jmpbuf(s.png))) return false;
  png_write_end(s.png, nullptr);
  return true;
}

[[noreturn]] void fail(const State& s) {
  if (s.write_errno != 0) throw write_failure(s.name, s.write_errno);
  throw IoError(s.name + ": cannot encode the PNG (" + s.message + ")");
}

}  // namespace

PngRowWriter::PngRowWriter(const std::string& path, const std::string& name, int64_t width, int64_t height,
                           int64_t channels)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.name = name, s.width = width, s.height = height, s.channels = channels;
  s.file = std::fopen(path.c_str(), "wb");
  if (!s.file) throw write_failure(name, errno);
  s.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, static_cast<PngErrors*>(&s), png_fail, png_ignore);
  if (s.png) s.info = png_create_info_struct(s.png);
  if (!s.info) throw IoError(name + ": cannot encode the PNG (libpng is out of memory)");
  if (!write_header(s)) fail(s);
}

PngRowWriter::~PngRowWriter() = default;

void PngRowWriter::write(const Image& rows) {
  State& s = *state_;
  if (rows.width != s.width || rows.channels != s.channels || s.written + rows.height > s.height)
    throw Error(ExitCode::kInternal, s.name + ": rows of " + std::to_string(rows.width) + " x " + std::to_string(rows.channels) +
                " do not continue a PNG of " + std::to_string(s.width) + " x " + std::to_string(s.height) + " x " +
                std::to_string(s.channels));
  if (!write_rows(s, rows.pixels.data(), rows.height)) fail(s);
  s.written += rows.height;
}

void PngRowWriter::finish() {
  State& s = *state_;
  if (s.written != s.height)
    throw Error(ExitCode::kInternal, s.name + ": " + std::to_string(s.written) + " of " + std::to_string(s.height) + " rows written");
  if (!write_end(s)) fail(s);
  std::FILE* file = s.file;
  s.file = nullptr;
  if (std::fflush(file) != 0) {
    const int error = errno;
    std::fclose(file);
    throw write_failure(s.name, error);
  }
  if (std::fclose(file) != 0) throw write_failure(s.name, errno);
}

}  // namespace trainer
