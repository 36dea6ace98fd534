#include "data/download.h"

#include <curl/curl.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/sha256.h"

namespace trainer {
namespace {

size_t write_to_file(char* data, size_t size, size_t count, void* file) {
  return std::fwrite(data, size, count, static_cast<std::FILE*>(file)) * size;
}

}  // namespace

std::string sha256_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError("cannot read " + path + " to check its SHA-256");
  Sha256 digest;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0)
    digest.update(std::string_view(buffer, static_cast<size_t>(in.gcount())));
  return digest.hex();
}

void download_verified(const DownloadRequest& request) {
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(request.destination).parent_path(), error);
  if (error) throw DataError("cannot create the folder of " + request.destination + ": " + error.message());
  log().info("downloading {} to {}", request.url, request.destination);

  write_atomic_with(request.destination, [&](const std::string& tmp) {
    // A deleter type of our own: decltype(&std::fclose) carries attributes
    // that newer compilers warn about dropping.
    struct CloseFile {
      void operator()(std::FILE* f) const { std::fclose(f); }
    };
    std::unique_ptr<std::FILE, CloseFile> file(std::fopen(tmp.c_str(), "wb"));
    if (!file) throw DataError("cannot write " + tmp);
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
    if (!curl) throw DataError("libcurl failed to start");
    char message[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(curl.get(), CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, write_to_file);
    curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, file.get());
    curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, message);
    curl_easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl.get(), CURLOPT_FAILONERROR, 1L);  // HTTP >= 400 is an error
    curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT, request.connect_timeout_seconds);
    // A stalled transfer (under 1 KiB/s for 30 s) is abandoned, never a hang.
    curl_easy_setopt(curl.get(), CURLOPT_LOW_SPEED_LIMIT, 1024L);
    curl_easy_setopt(curl.get(), CURLOPT_LOW_SPEED_TIME, 30L);
    const CURLcode status = curl_easy_perform(curl.get());
    if (status != CURLE_OK)
      throw DataError("download of " + request.url + " failed: " + (message[0] ? message : curl_easy_strerror(status)),
                      "without network access, put the file at " + request.destination + " yourself");
    if (std::fflush(file.get()) != 0) throw DataError("cannot write " + tmp);
    file.reset();
    if (!request.sha256.empty()) {
      const std::string actual = sha256_of_file(tmp);
      if (actual != request.sha256)
        throw DataError("download of " + request.url + " has SHA-256 " + actual + ", expected " + request.sha256,
                        "the file was damaged or replaced; nothing was kept");
    }
  });
}

}  // namespace trainer
