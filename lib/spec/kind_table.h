#pragma once
// What spec/layer_kinds.h and spec/optimizer_kinds.h make of their tables of
// kinds (a std::tuple of entries, each with a static `kind` and `name`):
// the variant that holds one entry, the enum's names, and the dispatch from
// an enum value to its entry.
#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "spec/enum_names.h"

namespace trainer {

// std::variant<Entries...> of a std::tuple<Entries...>.
template <class Table> struct VariantOf;
template <class... Entries> struct VariantOf<std::tuple<Entries...>> {
  using type = std::variant<Entries...>;
};

namespace kind_table_detail {
template <class E, class Table, size_t... I>
constexpr auto names(std::index_sequence<I...>) {
  return std::array<EnumName<E>, sizeof...(I)>{
      EnumName<E>{std::tuple_element_t<I, Table>::kind, std::tuple_element_t<I, Table>::name}...};
}
template <class Table, class E, class F, size_t... I>
decltype(auto) dispatch(E kind, F&& f, std::index_sequence<I...>) {
  // The first entry that matches runs; || stops the fold there.
  using Result = decltype(f(std::tuple_element_t<0, Table>{}));
  if constexpr (std::is_void_v<Result>) {
    static_cast<void>(
        ((std::tuple_element_t<I, Table>::kind == kind ? (f(std::tuple_element_t<I, Table>{}), true) : false) || ...));
  } else {
    Result result{};
    static_cast<void>(
        ((std::tuple_element_t<I, Table>::kind == kind ? (result = f(std::tuple_element_t<I, Table>{}), true) : false) ||
         ...));
    return result;
  }
}
}  // namespace kind_table_detail

// The table's kinds and names, in its order: an EnumTable's `entries`.
template <class E, class Table>
constexpr auto kind_names() {
  return kind_table_detail::names<E, Table>(std::make_index_sequence<std::tuple_size_v<Table>>{});
}

// f(Entry{}) with a default entry of the kind `kind`; its result, if any.
template <class Table, class E, class F>
decltype(auto) with_kind(E kind, F&& f) {
  return kind_table_detail::dispatch<Table>(kind, std::forward<F>(f), std::make_index_sequence<std::tuple_size_v<Table>>{});
}

}  // namespace trainer
