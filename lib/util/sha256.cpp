#include "util/sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace trainer {

struct Sha256::Context {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ~Context() { EVP_MD_CTX_free(md); }
};

Sha256::Sha256() : context_(std::make_unique<Context>()) {
  if (!context_->md || EVP_DigestInit_ex(context_->md, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("OpenSSL cannot start a SHA-256 digest");
}

Sha256::~Sha256() = default;

void Sha256::update(std::string_view data) { EVP_DigestUpdate(context_->md, data.data(), data.size()); }

std::string Sha256::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(context_->md, digest, &length);
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) out += {digits[digest[i] >> 4], digits[digest[i] & 15]};
  return out;
}

std::string sha256_hex(std::string_view data) {
  Sha256 digest;
  digest.update(data);
  return digest.hex();
}

}  // namespace trainer
