// The command line of `upsample check`: parsing, --help, and the selection it makes.
#pragma once

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "check/compare.hpp"
#include "check/entry_points.hpp"

namespace upsample::cli {

inline constexpr uint64_t kDefaultSeed = 1;

struct Options {
  std::string op_text;
  std::optional<std::regex> op;
  std::vector<const DTypeInfo*> dtypes;  // empty: all
  std::vector<const Layout*> layouts;    // empty: all
  uint64_t seed = kDefaultSeed;
  bool json = false;
};

// `args` are the arguments after "check". Returns std::nullopt and sets *exit_code when the
// command is done: --help printed (0) or a usage error reported (2).
std::optional<Options> parse_options(const std::vector<std::string>& args, int* exit_code);

// Prints "upsample check: <what> (see 'upsample check --help')" to stderr; returns 2.
int usage_error(const std::string& what);

bool selected(const Options& opts, const EntryPoint& e);
bool selected(const Options& opts, const DTypeInfo& d);
// The entry point's layouts that are selected, in the entry point's order.
std::vector<const Layout*> selected_layouts(const Options& opts, const EntryPoint& e);

}  // namespace upsample::cli
