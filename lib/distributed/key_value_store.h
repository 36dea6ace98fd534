#pragma once
// The rendezvous store as the heartbeat sees it: a few string operations.
// The c10d TCPStore implements it; tests use an in-memory one.
#include <memory>
#include <optional>
#include <string>

namespace trainer {

class KeyValueStore {
 public:
  virtual ~KeyValueStore() = default;
  virtual void set(const std::string& key, const std::string& value) = 0;
  // The value, or nothing when the key is not set yet. Throws when the store
  // cannot be reached.
  virtual std::optional<std::string> get(const std::string& key) = 0;
};

}  // namespace trainer
