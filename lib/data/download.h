#pragma once
// Downloads a file over HTTP(S) and checks its SHA-256 before it takes its
// final name: a failed or tampered download never leaves a file behind.
#include <string>

namespace trainer {

struct DownloadRequest {
  std::string url;
  std::string sha256;       // lower-case hex; empty: not checked
  std::string destination;  // final path; its folder is created
  long connect_timeout_seconds = 20;
};

// Throws DataError naming the URL and what went wrong (offline, HTTP status,
// checksum mismatch).
void download_verified(const DownloadRequest& request);

// SHA-256 of a file's content, lower-case hex. Throws DataError.
std::string sha256_of_file(const std::string& path);

}  // namespace trainer
