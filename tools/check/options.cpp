#include "check/options.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "args.hpp"
#include "check/rows.hpp"

namespace upsample::cli {
namespace {

template <typename T>
std::string names_of(const std::vector<T>& items) {
  std::string s;
  for (const T& item : items) {
    if (!s.empty()) s += ',';
    s += item.name;
  }
  return s;
}

void print_help() {
  std::string entry_names;
  for (const EntryPoint& e : all_entry_points()) entry_names += "\n  " + display_name(e);
  std::printf(
      "Usage: upsample check [--op REGEX] [--dtype LIST] [--layout LIST] [--seed N] [--json]\n"
      "\n"
      "Runs every implemented aclnn entry point through the aclnn C API, as an application\n"
      "does (aclInit, aclrtSetDevice, a stream, aclrtMalloc, aclCreateTensor,\n"
      "GetWorkspaceSize, launch, aclrtSynchronizeStream), forward and backward, for each dtype\n"
      "and layout it supports, on a few shapes (non-integer upsampling, downsampling, sizes-\n"
      "and scale-driven, align_corners on and off) filled with zeros, ones, ramps along each\n"
      "axis and seeded random data (uint8: integers 0 to 254). Results are compared with an\n"
      "independent float64 reference computed on the same dtype-rounded inputs; where\n"
      "PyTorch's (and so the reference's) backward is not the transpose of its forward\n"
      "(nearest with a scale and out == in or 2 * in, bicubic with no size change), the\n"
      "library's backward is compared with the transpose of the reference forward. Each\n"
      "forward/backward pair is also checked for the adjoint identity\n"
      "<A x, y> = <x, A^T y> in float64, through the library alone.\n"
      "\n"
      "Options:\n"
      "  --op REGEX     only entry points whose name (or name(variant), e.g.\n"
      "                 aclnnResize(nearest)) contains a match of REGEX (ECMAScript),\n"
      "                 e.g. 'Bilinear2d$'; an adjoint pair runs when either side matches\n"
      "  --dtype LIST   comma-separated, from %s (default: all);\n"
      "                 the adjoint check runs when float64 is selected\n"
      "  --layout LIST  comma-separated, from %s (default: all)\n"
      "  --seed N       seed of the random data (default %llu)\n"
      "  --json         print one JSON document (rows, adjoint, summary) instead of tables\n"
      "  -h, --help     print this help\n"
      "\n"
      "Pass criteria per element, with r the reference value and m = max(1, |r|):\n"
      "  float32  |err| <= 1e-5 m forward, 1e-4 m backward\n"
      "  float64  |err| <= 1e-12 m\n"
      "  float16, bfloat16  |err| <= 1 ulp of the dtype at r, or <= the float32 tolerance\n"
      "           plus half an ulp (near-zero results of cancellation)\n"
      "  exact    nearest and nearest-exact forward (every dtype) and uint8: r rounded to\n"
      "           the dtype must have the same bits as the result\n"
      "  adjoint  |<A x, y> - <x, A^T y>| / |<A x, y>| <= %g\n"
      "Reported: max abs error, max error in ulps of the dtype at m, max error relative to m.\n"
      "\n"
      "Entry points:%s\n"
      "\n"
      "Exit status: 0 all checks pass, 1 a check failed, 2 usage error.\n",
      names_of(all_dtypes()).c_str(), names_of(all_layouts()).c_str(),
      static_cast<unsigned long long>(kDefaultSeed), kAdjointThreshold, entry_names.c_str());
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

// Parses a comma-separated list of names from `known`; returns an error text or "".
template <typename T>
std::string parse_names(const char* flag, const char* noun, const std::string& text,
                        const std::vector<T>& known, std::vector<const T*>* out) {
  for (const std::string& name : split_list(text)) {
    const auto it =
        std::find_if(known.begin(), known.end(), [&](const T& k) { return name == k.name; });
    const T* item = it == known.end() ? nullptr : &*it;
    if (item == nullptr) {
      return std::string(flag) + ": unknown " + noun + " '" + name +
             "' (expected a comma-separated list from " + names_of(known) + ")";
    }
    if (std::find(out->begin(), out->end(), item) == out->end()) out->push_back(item);
  }
  return "";
}

bool selected(const Options& opts, const Layout& l) {
  return opts.layouts.empty() ||
         std::find(opts.layouts.begin(), opts.layouts.end(), &l) != opts.layouts.end();
}

}  // namespace

int usage_error(const std::string& what) { return usage_error("upsample check", what); }

std::optional<Options> parse_options(const std::vector<std::string>& arg_list, int* exit_code) {
  Options opts;
  ArgReader args(arg_list);
  while (args.next()) {
    const std::string& flag = args.name();
    std::optional<std::string> value;
    const bool takes_value =
        flag == "--op" || flag == "--dtype" || flag == "--layout" || flag == "--seed";
    if (takes_value) {
      if (!args.value(&value.emplace())) {
        *exit_code = usage_error(flag + ": missing value");
        return std::nullopt;
      }
    } else if (args.has_inline_value()) {
      *exit_code = usage_error(flag + ": takes no value");
      return std::nullopt;
    }
    std::string error;
    if (flag == "-h" || flag == "--help") {
      print_help();
      *exit_code = 0;
      return std::nullopt;
    } else if (flag == "--json") {
      opts.json = true;
    } else if (flag == "--op") {
      // std::regex reports a bad pattern only by throwing.
      try {
        opts.op.emplace(*value, std::regex::ECMAScript);
        opts.op_text = *value;
      } catch (const std::regex_error& e) {
        error = "--op: invalid regular expression '" + *value + "': " + e.what();
      }
    } else if (flag == "--dtype") {
      error = parse_names("--dtype", "dtype", *value, all_dtypes(), &opts.dtypes);
    } else if (flag == "--layout") {
      error = parse_names("--layout", "layout", *value, all_layouts(), &opts.layouts);
    } else if (flag == "--seed") {
      const char* end = value->data() + value->size();
      const auto [ptr, ec] = std::from_chars(value->data(), end, opts.seed);
      if (value->empty() || ec != std::errc() || ptr != end) {
        error = "--seed: '" + *value + "' is not an unsigned 64-bit integer";
      }
    } else if (flag.rfind("-", 0) == 0) {
      error = "unknown option '" + flag + "'";
    } else {
      error = "unexpected argument '" + flag + "'";
    }
    if (!error.empty()) {
      *exit_code = usage_error(error);
      return std::nullopt;
    }
  }
  return opts;
}

bool selected(const Options& opts, const EntryPoint& e) {
  return !opts.op || std::regex_search(e.name(), *opts.op) ||
         std::regex_search(display_name(e), *opts.op);
}
bool selected(const Options& opts, const DTypeInfo& d) {
  return opts.dtypes.empty() ||
         std::find(opts.dtypes.begin(), opts.dtypes.end(), &d) != opts.dtypes.end();
}
std::vector<const Layout*> selected_layouts(const Options& opts, const EntryPoint& e) {
  std::vector<const Layout*> layouts;
  for (const Layout* l : e.layouts) {
    if (selected(opts, *l)) layouts.push_back(l);
  }
  return layouts;
}

}  // namespace upsample::cli
