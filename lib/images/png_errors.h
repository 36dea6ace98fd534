#pragma once
// libpng's error handling for trainer's row reader and row writer. libpng
// reports an error through a callback that must not return: it jumps back
// to the setjmp of the function that called into libpng, with the message
// kept here. Warnings (an ancillary chunk's bad CRC, an unknown profile)
// leave the pixels intact and are ignored, as libpng's simplified interface
// ignores them. Internal to data/.
#include <png.h>

#include <cstdio>

namespace trainer {

// The start of a reader's or writer's state, handed to libpng as its error
// pointer.
struct PngErrors {
  char message[256] = {};
};

inline void png_fail(png_structp png, png_const_charp message) {
  auto* errors = static_cast<PngErrors*>(png_get_error_ptr(png));
  std::snprintf(errors->message, sizeof errors->message, "%s", message);
  png_longjmp(png, 1);
}

inline void png_ignore(png_structp, png_const_charp) {}

}  // namespace trainer
