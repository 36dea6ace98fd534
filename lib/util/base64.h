#pragma once
// Base64 (RFC 4648, with padding; OpenSSL's encoder): how the run report
// embeds PNG pictures in its one HTML file (data: URIs).
#include <string>

namespace trainer {

std::string base64_encode(const std::string& bytes);

}  // namespace trainer
