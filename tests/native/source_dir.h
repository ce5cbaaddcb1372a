// Where the native tests find their fixtures: a path under the source tree.
#pragma once

#include <string>

namespace ap::testing {

/** `rel` (e.g. "tests/fixtures/rng/cases.txt") under the source tree this suite was configured from. */
std::string source_path(const std::string& rel);

}  // namespace ap::testing
