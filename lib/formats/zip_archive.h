#pragma once
// Reads ZIP archives held in memory: the container of numpy's .npz files and
// of LibTorch's checkpoints. Stored and deflated members, with the zip64
// extensions numpy writes (it forces zip64 on every member). Every size and
// offset the archive declares is checked against the bytes actually present
// before anything is allocated.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace trainer {

struct ZipMember {
  std::string name;
  uint16_t method = 0;  // 0 stored, 8 deflated
  uint32_t crc32 = 0;   // of the uncompressed content, as recorded
  uint64_t compressed = 0, uncompressed = 0;
  uint64_t data_offset = 0;  // of the (compressed) content in the archive
};

struct ZipDirectory {
  std::vector<ZipMember> members;
  uint64_t end_of_directory = 0;  // offset of the end-of-directory record
  std::string comment;            // the archive comment
};

struct ZipEnd {
  uint64_t offset = 0;  // of the end-of-directory record
  std::string comment;  // the archive comment
};

// Finds the end-of-directory record and its comment, nothing more. Throws
// DataError when there is none.
ZipEnd find_zip_end(const std::string& bytes, const std::string& name);

// The archive's members, in directory order. `name` is used in error
// messages. Throws DataError on a truncated or corrupt archive, or on a
// member whose declared size its compressed bytes cannot hold.
ZipDirectory read_zip_directory(const std::string& bytes, const std::string& name);

// `member`'s content, inflated with its size capped at the declared one.
// Throws DataError when it inflates to another size.
std::string zip_member_content(const std::string& bytes, const ZipMember& member, const std::string& name);

// The CRC-32 of `member`'s content as computed, to compare with the recorded one.
uint32_t zip_member_crc32(const std::string& bytes, const ZipMember& member, const std::string& name);

// The CRC-32 zip records (zlib's), of any size.
uint32_t crc32_of(const char* data, uint64_t size);

// Member name -> uncompressed content. Throws DataError.
std::map<std::string, std::string> read_zip_members(const std::string& bytes, const std::string& name);

}  // namespace trainer
