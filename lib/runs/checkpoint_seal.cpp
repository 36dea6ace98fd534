#include "runs/checkpoint_seal.h"

#include <cstdint>

#include "formats/zip_archive.h"
#include "util/sha256.h"

namespace trainer {
namespace {

constexpr const char* kSealPrefix = "trainer-sha256:";
constexpr size_t kEndRecordSize = 22;  // the end-of-directory record without its comment
// The seal covers everything up to the record's comment length field.
constexpr size_t kCommentLengthAt = 20;

std::string digest_before_comment(const std::string& bytes, uint64_t end_of_directory) {
  return sha256_hex(std::string_view(bytes).substr(0, end_of_directory + kCommentLengthAt));
}

void check_member_crcs(const std::string& bytes, const ZipDirectory& directory, const std::string& path,
                       const std::string& hint) {
  for (const ZipMember& member : directory.members)
    if (zip_member_crc32(bytes, member, path) != member.crc32)
      throw UnusableCheckpoint("checkpoint " + path + " is damaged: member " + member.name +
                                   " does not match its CRC-32", hint);
}

}  // namespace

// Pieces are passed on once this many bytes are held, so that hashing and
// writing work on what is still in the processor's cache.
constexpr size_t kPassOnBytes = size_t{1} << 20;

CheckpointSealer::CheckpointSealer(Sink out, std::string path)
    : out_(std::move(out)), path_(std::move(path)), digest_(std::make_unique<Sha256>()) {}

CheckpointSealer::~CheckpointSealer() = default;

void CheckpointSealer::append(const void* data, size_t size) {
  held_.append(static_cast<const char*>(data), size);
  if (held_.size() < kPassOnBytes + kEndRecordSize) return;
  const std::string_view passed = std::string_view(held_).substr(0, held_.size() - kEndRecordSize);
  digest_->update(passed);
  out_(passed);
  held_.erase(0, passed.size());
}

void CheckpointSealer::finish() {
  // LibTorch ends its archive with the end-of-directory record and no comment.
  const auto le = [&](size_t at, int bytes) {
    uint64_t value = 0;
    for (int i = bytes - 1; i >= 0; --i) value = value << 8 | static_cast<unsigned char>(held_[at + i]);
    return value;
  };
  if (held_.size() < kEndRecordSize)
    throw IoError("cannot seal checkpoint " + path_ + ": LibTorch's archive is too short to be a zip");
  const size_t end = held_.size() - kEndRecordSize;
  // A record elsewhere (one with a comment, a seal's) is not LibTorch's end.
  if (le(end, 4) != 0x06054b50 || le(end + kCommentLengthAt, 2) != 0)
    throw IoError("cannot seal checkpoint " + path_ +
                  ": the archive does not end in a zip end-of-directory record without a comment");
  digest_->update(std::string_view(held_).substr(0, end + kCommentLengthAt));
  const std::string seal = kSealPrefix + digest_->hex();
  held_[end + kCommentLengthAt] = static_cast<char>(seal.size() & 0xff);
  held_[end + kCommentLengthAt + 1] = static_cast<char>(seal.size() >> 8);
  held_ += seal;
  out_(held_);
  held_.clear();
}

std::string seal_checkpoint(const std::string& archive, const std::string& path) {
  std::string sealed;
  CheckpointSealer sealer([&](std::string_view bytes) { sealed.append(bytes); }, path);
  sealer.append(archive.data(), archive.size());
  sealer.finish();
  return sealed;
}

Seal verify_checkpoint(const std::string& bytes, const std::string& path) {
  const std::string hint = "the file was damaged after it was written (disk, copy or transfer); resume from an "
                           "older checkpoint of the run";
  // Every LibTorch archive starts with a zip member's header: a file that
  // does not is another kind of file (a config, an export, an old pickled
  // torch.save) named by mistake, not a damaged checkpoint.
  if (bytes.compare(0, 4, std::string("PK\x03\x04", 4)) != 0)
    throw UnusableCheckpoint("checkpoint " + path + " is not a checkpoint: " +
                                 (bytes.empty() ? std::string("it is empty")
                                                : "it does not begin as a zip archive, as LibTorch's .pt files do"),
                             "name a checkpoint (.pt) a trainer run wrote, or its run directory; weights exported "
                             "as .safetensors or .npz start a run through model.init_from");
  try {
    // The seal first: whatever the damage, it is the clearest account.
    const ZipEnd end = find_zip_end(bytes, path);
    const std::string prefix = kSealPrefix;
    if (end.comment.compare(0, prefix.size(), prefix) == 0) {
      if (digest_before_comment(bytes, end.offset) != end.comment.substr(prefix.size()))
        throw UnusableCheckpoint("checkpoint " + path + " is damaged: its SHA-256 is not the one it was sealed with",
                                 hint);
      // The digest covers every member and the directory: the CRC-32s can add nothing.
      return Seal::kVerified;
    }
    check_member_crcs(bytes, read_zip_directory(bytes, path), path, hint);
    return Seal::kAbsent;
  } catch (const DataError& e) {
    throw UnusableCheckpoint(std::string("checkpoint ") + e.what(), hint);
  }
}

}  // namespace trainer
