// `upsample check`: the rows to run (options.cpp's selection of entry_points.cpp's rows), each
// case of cases.cpp run through the acl runtime (acl_runner.cpp) and compared with the reference
// (expected.cpp, compare.cpp), the adjoint identities, and the report (report.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "check/acl_runner.hpp"
#include "check/cases.hpp"
#include "check/check.hpp"
#include "check/compare.hpp"
#include "check/entry_points.hpp"
#include "check/expected.hpp"
#include "check/options.hpp"
#include "check/report.hpp"
#include "check/rows.hpp"

namespace upsample::cli {
namespace {

// Fills in `row`, whose entry point, dtype and layout are set.
void check_row(const AclSession& session, const Options& opts, CheckRow* row) {
  const EntryPoint& e = *row->entry;
  const DTypeInfo& dtype = *row->dtype;
  const Layout& layout = *row->layout;
  for (const Geometry& g : geometries(e.spatial_rank())) {
    for (bool align : align_corners_values(e)) {
      const Call call = make_call(e, layout, dtype, g, align);
      for (const Pattern& p : patterns(e.spatial_rank())) {
        const std::string label = case_label(g, e.spatial_rank(), align) + " " + p.name;
        std::vector<double> src = pattern_values(
            p, call.src_shape, dtype,
            stream_for(opts.seed, display_name(e) + " " + layout.name + " " + label));
        for (double& x : src) x = round_to(dtype, x);
        std::vector<double> ours;
        std::string error;
        ++row->cases;
        if (!run_call(session, call, src, &ours, &error)) {
          row->failure = label + ": " + error;
          return;
        }
        compare(ours, reference_result(e, g, align, call.scales, src), call.dst_shape, label, row);
      }
    }
  }
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Adjoint identity: <A x, y> == <x, A^T y> with A the forward and A^T the backward entry point,
// both run through the library in float64. It checks that the backward is the transpose of
// the forward (same taps, same weights) independently of the reference.
// Fills in `row`, whose entry points and layout are set.
void check_adjoint(const AclSession& session, const Options& opts, AdjointRow* row) {
  const EntryPoint& fwd = *row->forward;
  const EntryPoint& bwd = *row->backward;
  const Layout& layout = *row->layout;
  const DTypeInfo& f64 = *find_dtype("float64");
  for (Geometry g : geometries(fwd.spatial_rank())) {
    // Both sides get the same scales: rounded to float when either takes float scales
    // (Nearest2dV2 with Nearest2dBackward), and none at all when one side ignores scales that
    // the other honours (Bilinear2dBackward V1 with Bilinear2d, Nearest2d with
    // Nearest2dBackward), where the two would resample with different ratios.
    g.scales = passed_scales(fwd, passed_scales(bwd, g.scales));
    if (aclnn::effective_scales(*fwd.row, g.scales) !=
        aclnn::effective_scales(*bwd.row, g.scales)) {
      g.scales = {0, 0, 0};
    }
    for (bool align : align_corners_values(fwd)) {
      const std::string label = case_label(g, fwd.spatial_rank(), align);
      const Call forward_call = make_call(fwd, layout, f64, g, align, g.scales);
      const Call backward_call = make_call(bwd, layout, f64, g, align, g.scales);
      const std::string key =
          std::string(fwd.name()) + " " + bwd.name() + " " + layout.name + " " + label;
      const std::vector<double> x = random_values(
          static_cast<size_t>(numel(forward_call.src_shape)), stream_for(opts.seed, key + " x"));
      const std::vector<double> y = random_values(
          static_cast<size_t>(numel(forward_call.dst_shape)), stream_for(opts.seed, key + " y"));
      std::vector<double> ax, aty;
      std::string error;
      ++row->cases;
      if (!run_call(session, forward_call, x, &ax, &error) ||
          !run_call(session, backward_call, y, &aty, &error)) {
        row->failure = label + ": " + error;
        return;
      }
      const double lhs = dot(ax, y);
      double residual =
          std::fabs(lhs - dot(x, aty)) / (std::fabs(lhs) + std::numeric_limits<double>::min());
      if (std::isnan(residual)) residual = std::numeric_limits<double>::infinity();
      row->max_residual = std::max(row->max_residual, residual);
      if (residual > kAdjointThreshold && row->failure.empty()) {
        row->failure = label + ": residual " + format_number(residual) + " > " +
                       format_number(kAdjointThreshold);
      }
    }
  }
}

}  // namespace

int run_check(const std::vector<std::string>& args) {
  int exit_code = 0;
  const std::optional<Options> parsed = parse_options(args, &exit_code);
  if (!parsed) return exit_code;
  const Options& opts = *parsed;

  // The rows to fill, decided before the runtime starts so that an empty selection is a usage
  // error rather than a vacuous pass.
  std::vector<CheckRow> rows;
  for (const EntryPoint& e : all_entry_points()) {
    if (!selected(opts, e)) continue;
    for (const DTypeInfo& d : all_dtypes()) {
      if (!e.takes(d.dtype) || !selected(opts, d)) continue;
      for (const Layout* l : selected_layouts(opts, e)) {
        rows.emplace_back();
        rows.back().entry = &e;
        rows.back().dtype = &d;
        rows.back().layout = l;
        rows.back().exact = bit_exact(e) || d.integer;
      }
    }
  }
  std::vector<AdjointRow> adjoint;
  if (selected(opts, *find_dtype("float64"))) {
    for (const EntryPoint& bwd : all_entry_points()) {
      for (const EntryPoint* fwd : bwd.adjoint_of) {
        if (!(selected(opts, *fwd) || selected(opts, bwd))) continue;
        for (const Layout* l : selected_layouts(opts, bwd)) {
          if (!fwd->runs(*l)) continue;
          adjoint.emplace_back();
          adjoint.back().forward = fwd;
          adjoint.back().backward = &bwd;
          adjoint.back().layout = l;
        }
      }
    }
  }
  if (rows.empty() && adjoint.empty()) {
    return usage_error(
        "nothing to check: no implemented entry point matches the --op, --dtype "
        "and --layout selection");
  }

  std::string error;
  const std::unique_ptr<AclSession> session = AclSession::open(&error);
  if (session == nullptr) {
    std::fprintf(stderr, "upsample check: cannot start the acl runtime: %s\n", error.c_str());
    return 1;
  }
  for (CheckRow& r : rows) check_row(*session, opts, &r);
  for (AdjointRow& a : adjoint) check_adjoint(*session, opts, &a);

  int passed = 0, failed = 0;
  for (const CheckRow& r : rows) (r.passed() ? passed : failed)++;
  for (const AdjointRow& a : adjoint) (a.passed() ? passed : failed)++;
  if (opts.json) {
    print_json(opts, rows, adjoint, passed, failed);
  } else {
    print_tables(opts, rows, adjoint, passed, failed);
  }
  return failed > 0 ? 1 : 0;
}

}  // namespace upsample::cli
