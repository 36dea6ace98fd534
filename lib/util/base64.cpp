#include "util/base64.h"

#include <openssl/evp.h>

namespace trainer {

std::string base64_encode(const std::string& bytes) {
  // OpenSSL's encoder (already linked for SHA-256): 4 characters for every 3
  // bytes, padded, and a terminating NUL that the string drops.
  std::string out((bytes.size() + 2) / 3 * 4 + 1, '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                      reinterpret_cast<const unsigned char*>(bytes.data()),
                                      static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(written));
  return out;
}

}  // namespace trainer
