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

std::string seal_checkpoint(std::string archive, const std::string& path) {
  ZipEnd end;
  try {
    end = find_zip_end(archive, path);
  } catch (const DataError& e) {
    throw IoError(std::string("cannot seal checkpoint: ") + e.what());
  }
  if (!end.comment.empty() || end.offset + kEndRecordSize != archive.size())
    throw IoError("cannot seal checkpoint " + path + ": LibTorch's archive already ends in a comment");
  const std::string seal = kSealPrefix + digest_before_comment(archive, end.offset);
  archive[end.offset + kCommentLengthAt] = static_cast<char>(seal.size() & 0xff);
  archive[end.offset + kCommentLengthAt + 1] = static_cast<char>(seal.size() >> 8);
  archive += seal;
  return archive;
}

Seal verify_checkpoint(const std::string& bytes, const std::string& path) {
  const std::string hint = "the file was damaged after it was written (disk, copy or transfer); resume from an "
                           "older checkpoint of the run";
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
