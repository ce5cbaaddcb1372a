// An enum's name parsed back through the one switch that names each value (score_name, positions_name), so
// the accepted names and the error's list of them cannot drift from that switch.
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include "core/common.h"

namespace ap {

// Returns the value of `values` whose name_of is `name`; otherwise throws naming the argument `arg`:
// "<arg>: unknown <what> '<name>'; expected one of <every name, in the order of values>".
template <typename E, std::size_t N>
E parse_enum_name(const std::string& name, const std::array<E, N>& values, const char* (*name_of)(E), const char* arg,
                  const char* what) {
  std::string list;
  for (E v : values) {
    if (name == name_of(v)) return v;
    if (!list.empty()) list += ", ";
    list += name_of(v);
  }
  throw Error(std::string(arg) + ": unknown " + what + " '" + name + "'; expected one of " + list);
}

}  // namespace ap
