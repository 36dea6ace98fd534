#pragma once
// How each config value type is read from and written to YAML. Every codec
// has decode (false when the node does not hold such a value), encode, and
// expected (the text shown in errors and in the config reference): plain
// values in yaml_codec_scalars.h, a layer's shapes in yaml_codec_layers.h, a
// run's settings in yaml_codec_run.h; this header brings them together.
#include <type_traits>
#include <vector>

#include "config/yaml_codec_layers.h"
#include "config/yaml_codec_run.h"
#include "config/yaml_codec_scalars.h"

namespace trainer {

// Whether T is a config section (has visit_fields).
template <class T, class = void>
struct IsSection : std::false_type {};
template <class T>
struct IsSection<T, std::void_t<decltype(&T::template visit_fields<int>)>> : std::true_type {};

// Whether T is a list of sections (model.layers).
template <class T>
struct IsSectionList : std::false_type {};
template <class T>
struct IsSectionList<std::vector<T>> : IsSection<T> {};

}  // namespace trainer
