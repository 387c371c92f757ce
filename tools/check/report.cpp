#include "check/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace upsample::cli {
namespace {

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// JSON has no infinity or NaN: those become null.
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string json_failure(const std::string& failure) {
  return failure.empty() ? "null" : json_string(failure);
}

}  // namespace

void print_json(const Options& opts, const std::vector<CheckRow>& rows,
                const std::vector<AdjointRow>& adjoint, int passed, int failed) {
  std::printf("{\n  \"command\": \"check\",\n  \"seed\": %llu,\n  \"op\": %s,\n  \"rows\": [",
              static_cast<unsigned long long>(opts.seed),
              opts.op ? json_string(opts.op_text).c_str() : "null");
  for (size_t i = 0; i < rows.size(); ++i) {
    const CheckRow& r = rows[i];
    std::printf(
        "%s\n    {\"entry_point\": %s, \"variant\": %s, \"direction\": \"%s\", \"dtype\": \"%s\", "
        "\"layout\": \"%s\", \"cases\": %lld, \"exact\": %s, \"max_abs_err\": %s, "
        "\"max_ulp_err\": %s, \"max_rel_err\": %s, \"pass\": %s, \"status\": \"%s\", "
        "\"failure\": %s}",
        i ? "," : "", json_string(r.entry->name()).c_str(),
        r.entry->row->variant ? json_string(r.entry->row->variant).c_str() : "null",
        r.entry->forward() ? "forward" : "backward", r.dtype->name, r.layout->name,
        static_cast<long long>(r.cases), r.exact ? "true" : "false", json_number(r.max_abs).c_str(),
        json_number(r.max_ulp).c_str(), json_number(r.max_rel).c_str(),
        r.passed() ? "true" : "false", r.passed() ? "PASS" : "FAIL",
        json_failure(r.failure).c_str());
  }
  std::printf("\n  ],\n  \"adjoint\": [");
  for (size_t i = 0; i < adjoint.size(); ++i) {
    const AdjointRow& a = adjoint[i];
    std::printf(
        "%s\n    {\"forward\": %s, \"backward\": %s, \"dtype\": \"float64\", \"layout\": \"%s\", "
        "\"cases\": %lld, \"max_residual\": %s, \"threshold\": %s, \"pass\": %s, "
        "\"status\": \"%s\", \"failure\": %s}",
        i ? "," : "", json_string(a.forward->name()).c_str(),
        json_string(a.backward->name()).c_str(), a.layout->name, static_cast<long long>(a.cases),
        json_number(a.max_residual).c_str(), json_number(kAdjointThreshold).c_str(),
        a.passed() ? "true" : "false", a.passed() ? "PASS" : "FAIL",
        json_failure(a.failure).c_str());
  }
  std::printf("\n  ],\n  \"summary\": {\"passed\": %d, \"failed\": %d}\n}\n", passed, failed);
}

void print_tables(const Options& opts, const std::vector<CheckRow>& rows,
                  const std::vector<AdjointRow>& adjoint, int passed, int failed) {
  std::printf("upsample check: aclnn entry points vs the float64 reference (seed %llu)\n\n",
              static_cast<unsigned long long>(opts.seed));
  int name_width = static_cast<int>(std::strlen("entry point"));
  for (const CheckRow& r : rows) {
    name_width = std::max(name_width, static_cast<int>(display_name(*r.entry).size()));
  }
  std::printf("%-*s  %-8s  %-6s  %5s  %-7s  %11s  %11s  %11s  %s\n", name_width, "entry point",
              "dtype", "layout", "cases", "compare", "max abs err", "max ulp err", "max rel err",
              "result");
  for (const CheckRow& r : rows) {
    std::printf("%-*s  %-8s  %-6s  %5lld  %-7s  %11.3g  %11.3g  %11.3g  %s\n", name_width,
                display_name(*r.entry).c_str(), r.dtype->name, r.layout->name,
                static_cast<long long>(r.cases), r.exact ? "exact" : "tol", r.max_abs, r.max_ulp,
                r.max_rel, r.passed() ? "PASS" : "FAIL");
  }
  std::printf(
      "\ncompare: exact = the reference rounded to the dtype must have our bits (nearest forward,\n"
      "uint8); tol = the tolerances of --help. ulps are those of the dtype at max(1, |ref|), the\n"
      "scale of the tolerances: at a near-zero reference (cancellation) an ulp of the result\n"
      "itself would be meaninglessly small.\n");
  if (!adjoint.empty()) {
    int forward_width = static_cast<int>(std::strlen("forward"));
    int backward_width = static_cast<int>(std::strlen("backward"));
    for (const AdjointRow& a : adjoint) {
      forward_width = std::max(forward_width, static_cast<int>(std::strlen(a.forward->name())));
      backward_width = std::max(backward_width, static_cast<int>(std::strlen(a.backward->name())));
    }
    std::printf("\nadjoint identity, float64: |<A x, y> - <x, A^T y>| / |<A x, y>| <= %g\n\n",
                kAdjointThreshold);
    std::printf("%-*s  %-*s  %-6s  %5s  %11s  %s\n", forward_width, "forward", backward_width,
                "backward", "layout", "cases", "residual", "result");
    for (const AdjointRow& a : adjoint) {
      std::printf("%-*s  %-*s  %-6s  %5lld  %11.3g  %s\n", forward_width, a.forward->name(),
                  backward_width, a.backward->name(), a.layout->name,
                  static_cast<long long>(a.cases), a.max_residual, a.passed() ? "PASS" : "FAIL");
    }
  }
  if (failed > 0) std::printf("\n");
  for (const CheckRow& r : rows) {
    if (!r.passed()) {
      std::printf("FAIL %s %s %s: %s\n", display_name(*r.entry).c_str(), r.dtype->name,
                  r.layout->name, r.failure.c_str());
    }
  }
  for (const AdjointRow& a : adjoint) {
    if (!a.passed()) {
      std::printf("FAIL adjoint %s / %s %s: %s\n", a.forward->name(), a.backward->name(),
                  a.layout->name, a.failure.c_str());
    }
  }
  std::printf("\n%d passed, %d failed\n", passed, failed);
}

}  // namespace upsample::cli
