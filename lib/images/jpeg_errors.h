#pragma once
// libjpeg's error handling for trainer's decoder and encoder. libjpeg
// reports errors through a callback that must not return: it jumps back to
// the setjmp of the function that called into libjpeg, with the message
// kept here. Warnings about the data (cut short, corrupt segments) count as
// errors too, but for extraneous bytes between segments, which cameras
// write and every decoder skips. Internal to data/.
// jpeglib.h needs size_t and FILE declared before it.
#include <cstdio>
#include <csetjmp>
#include <jpeglib.h>
#include <jerror.h>

namespace trainer {

struct JpegErrors {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX] = {};
  bool data_warning = false;
};

inline void jpeg_fail(j_common_ptr info) {
  auto* errors = reinterpret_cast<JpegErrors*>(info->err);
  (*info->err->format_message)(info, errors->message);
  std::longjmp(errors->jump, 1);
}

inline void jpeg_message(j_common_ptr info, int level) {
  auto* errors = reinterpret_cast<JpegErrors*>(info->err);
  if (level >= 0 || info->err->msg_code == JWRN_EXTRANEOUS_DATA || errors->data_warning) return;
  errors->data_warning = true;
  (*info->err->format_message)(info, errors->message);
}

// Installs the handlers above as `errors` for a compressor or decompressor.
inline jpeg_error_mgr* jpeg_errors(JpegErrors& errors) {
  jpeg_error_mgr* manager = jpeg_std_error(&errors.manager);
  errors.manager.error_exit = jpeg_fail;
  errors.manager.emit_message = jpeg_message;
  return manager;
}

}  // namespace trainer
