#include "spec/layer_spec.h"

#include "spec/kind_keys.h"

namespace trainer {
namespace {

template <class Entry, class = void>
struct HasActivation : std::false_type {};
template <class Entry>
struct HasActivation<Entry, std::void_t<decltype(std::declval<const Entry&>().activation)>> : std::true_type {};

template <class Entry, class = void>
struct HasQuietDefaults : std::false_type {};
template <class Entry>
struct HasQuietDefaults<Entry, std::void_t<decltype(std::declval<const Entry&>().is_quiet_default(std::string()))>>
    : std::true_type {};

}  // namespace

std::optional<Activation> LayerSpec::activation() const {
  return std::visit(
      [](const auto& entry) -> std::optional<Activation> {
        if constexpr (HasActivation<std::decay_t<decltype(entry)>>::value) return entry.activation;
        else return std::nullopt;
      },
      keys);
}

bool LayerSpec::is_quiet_default(const std::string& key) const {
  if ((key == "name" && name.empty()) || (key == "inputs" && inputs.empty()) || (key == "repeat" && repeat == 1) ||
      (key == "trainable" && trainable))
    return true;
  return std::visit(
      [&](const auto& entry) {
        if constexpr (HasQuietDefaults<std::decay_t<decltype(entry)>>::value) return entry.is_quiet_default(key);
        else return false;
      },
      keys);
}

std::string LayerSpec::foreign_key_note(const std::string& key) const {
  return foreign_key_note_for(*this, type(), [](LayerSpec& other, LayerKind kind) { other.set_type(kind); }, key);
}

}  // namespace trainer
