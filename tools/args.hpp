// Command-line parsing shared by the subcommands of `upsample` (tools/) and the benchmark front
// ends (bench/command.cpp): walking the arguments ("--key=value" split at the '='), option values
// and whole numbers with one wording of their errors, dtype and mode names, the usage error.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "upsample/resample.hpp"

namespace upsample::cli {

// Prints "PROGRAM: WHAT (see 'PROGRAM --help')" on stderr; returns 2, the usage-error status.
inline int usage_error(const std::string& program, const std::string& what) {
  std::fprintf(stderr, "%s: %s (see '%s --help')\n", program.c_str(), what.c_str(),
               program.c_str());
  return 2;
}

// A whole number of at most `max_digits` decimal digits (no sign) in [lo, hi].
inline bool parse_int(const std::string& text, int lo, int hi, int* value, size_t max_digits = 9) {
  if (text.empty() || text.size() > max_digits ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  const int v = std::atoi(text.c_str());
  if (v < lo || v > hi) return false;
  *value = v;
  return true;
}

// The dtype whose dtype_name() is `text`.
inline std::optional<DType> parse_dtype(const std::string& text) {
  for (DType d : {DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kFloat64,
                  DType::kUInt8, DType::kUInt16}) {
    if (text == dtype_name(d)) return d;
  }
  return {};
}

// A mode by its F.interpolate name: nearest, nearest-exact, bilinear, bicubic or area; with
// `rank_names` also linear and trilinear (the linear mode of 1-D and 3-D data) and cubic.
inline std::optional<Mode> parse_mode(const std::string& text, bool rank_names) {
  if (text == "nearest") return Mode::kNearest;
  if (text == "nearest-exact") return Mode::kNearestExact;
  if (text == "bilinear") return Mode::kLinear;
  if (text == "bicubic") return Mode::kCubic;
  if (text == "area") return Mode::kArea;
  if (rank_names && (text == "linear" || text == "trilinear")) return Mode::kLinear;
  if (rank_names && text == "cubic") return Mode::kCubic;
  return {};
}

// Walks a command line one argument at a time. An argument "--key=value" is the option --key
// with an inline value; an option that takes a value reads the inline one or else the next
// argument. The errors name the option as given ("--threads needs a value").
class ArgReader {
 public:
  explicit ArgReader(const std::vector<std::string>& args) : args_(args) {}

  // Moves to the next argument; false after the last.
  bool next() {
    if (next_ >= args_.size()) return false;
    raw_ = &args_[next_++];
    name_ = *raw_;
    inline_value_.reset();
    if (const size_t eq = name_.find('='); name_.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value_ = name_.substr(eq + 1);
      name_.resize(eq);
    }
    return true;
  }
  // The argument as given, and its option name (without "=value").
  const std::string& raw() const { return *raw_; }
  const std::string& name() const { return name_; }

  // The option's value (the inline one, else the next argument); false when there is none.
  bool value(std::string* v) {
    if (inline_value_) {
      *v = *inline_value_;
      return true;
    }
    if (next_ >= args_.size()) return false;
    *v = args_[next_++];
    return true;
  }
  // "" with the value in *v, or "NAME needs a value".
  std::string string_value(std::string* v) { return value(v) ? "" : name_ + " needs a value"; }
  // "" with a whole number from lo to hi (at most `max_digits` digits) in *v, or the error.
  std::string int_value(int lo, int hi, int* v, size_t max_digits = 9) {
    std::string text;
    if (!value(&text)) return name_ + " needs a value";
    if (!parse_int(text, lo, hi, v, max_digits)) {
      return name_ + " must be a whole number from " + std::to_string(lo) + " to " +
             std::to_string(hi) + ", got '" + text + "'";
    }
    return "";
  }
  // A flag: "" with *dst = set, or "NAME takes no value" for "--flag=value".
  std::string flag(bool* dst, bool set = true) {
    if (inline_value_) return name_ + " takes no value";
    *dst = set;
    return "";
  }
  bool has_inline_value() const { return inline_value_.has_value(); }

 private:
  const std::vector<std::string>& args_;
  size_t next_ = 0;
  const std::string* raw_ = nullptr;
  std::string name_;
  std::optional<std::string> inline_value_;
};

}  // namespace upsample::cli
