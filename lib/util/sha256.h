#pragma once
// SHA-256 (OpenSSL's), as lowercase hex: downloads and checkpoints are
// checked against it.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace trainer {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view data);
  // The digest of everything given; the object is spent afterwards.
  std::string hex();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

std::string sha256_hex(std::string_view data);

}  // namespace trainer
