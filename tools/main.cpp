// `upsample`: the command-line tool of libupsample. Subcommands are rows of kCommands.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "args.hpp"
#include "check/check.hpp"
#include "commands.hpp"

namespace {

// The project version of CMakeLists.txt's project() call; tests/python/test_cli.py checks that
// the two agree.
constexpr char kVersion[] = "0.1.0";

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>& args);
};

constexpr Command kCommands[] = {
    {"resize", "resample image files or folders (PNG, JPEG, WebP, TIFF) with any mode",
     upsample::cli::run_resize},
    {"bench", "time the standard workloads or custom shapes against a memory floor",
     upsample::cli::run_bench},
    {"demo", "resample a synthetic test image with every mode; contact sheet, check, bench",
     upsample::cli::run_demo},
    {"check", "run every aclnn entry point against the float64 reference",
     upsample::cli::run_check},
};

void print_usage(std::FILE* out) {
  std::fprintf(out,
               "Usage: upsample <command> [options]\n"
               "       upsample --help | --version\n"
               "\nCommands:\n");
  for (const Command& c : kCommands) std::fprintf(out, "  %-8s %s\n", c.name, c.summary);
  std::fprintf(out, "\n'upsample <command> --help' describes a command's options.\n");
}

int usage_error(const std::string& what) { return upsample::cli::usage_error("upsample", what); }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage_error("missing command");
  const std::string_view first = argv[1];
  if (first == "-h" || first == "--help") {
    print_usage(stdout);
    return 0;
  }
  if (first == "--version") {
    std::printf("upsample %s\n", kVersion);
    return 0;
  }
  for (const Command& c : kCommands) {
    if (first == c.name) return c.run(std::vector<std::string>(argv + 2, argv + argc));
  }
  if (first.substr(0, 1) == "-") return usage_error("unknown option '" + std::string(first) + "'");
  return usage_error("unknown command '" + std::string(first) + "'");
}
