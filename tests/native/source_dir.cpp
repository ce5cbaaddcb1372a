// The one translation unit that holds the source tree's absolute path (AP_SOURCE_DIR, CMakeLists.txt): the other
// test files then compile to the same objects in every clone, so ccache serves them from an earlier build.
#include "source_dir.h"

namespace ap::testing {

std::string source_path(const std::string& rel) { return std::string(AP_SOURCE_DIR) + "/" + rel; }

}  // namespace ap::testing
