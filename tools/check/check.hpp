// `upsample check`: every implemented aclnn entry point against the float64 reference.
#pragma once

#include <string>
#include <vector>

namespace upsample::cli {

// `args` are the arguments after "check". Returns the exit status: 0 when every check passes,
// 1 when one fails (or the acl runtime cannot start), 2 for a usage error.
int run_check(const std::vector<std::string>& args);

}  // namespace upsample::cli
