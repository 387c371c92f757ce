// The 28 CANN entry points of the upsample family, one row each: what the entry point computes
// and every rule it checks (dtypes, formats, scales, inputSize order, its parameter names).
// The library's entry points (entry_points.cpp) and `upsample check` (tools/check) read this one
// table; docs/ops.md and docs/compat.md describe it.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "aclnn/acl_meta.h"
#include "upsample/resample.hpp"

namespace upsample::aclnn {

// How an entry point turns its scale arguments into the scales it resamples with.
enum class ScaleRule {
  kNone,       // the entry point takes no scales: the ratio comes from the sizes
  kPerAxis,    // each scale > 0 is used, a scale <= 0 means "not given" for its axis
  kAllOrNone,  // the scales are used only if every one is > 0 (CANN's 3-D entry points)
  kIgnored,    // scales are taken but the ratio comes from the sizes (Bilinear2dBackward V1)
};

// How a backward entry point orders inputSize: logically (N, C, spatial...) or in the format
// order (N, spatial..., C when channels-last) of its output or of gradOut.
enum class InputSizeOrder { kLogical, kByOutFormat, kByGradFormat };

constexpr uint32_t dtype_bit(DType t) { return 1u << static_cast<int>(t); }
inline constexpr uint32_t kFloatTypes = dtype_bit(DType::kFloat32) | dtype_bit(DType::kFloat16) |
                                        dtype_bit(DType::kBFloat16) | dtype_bit(DType::kFloat64);
// Nearest forward moves elements, so uint8 is exact; everything else computes in floating point.
inline constexpr uint32_t kFloatAndUInt8 = kFloatTypes | dtype_bit(DType::kUInt8);

struct EntryRow {
  const char* name;               // CANN's name, without "GetWorkspaceSize"
  const char* variant = nullptr;  // aclnnResize's mode string ("nearest" / "bilinear")
  Direction direction = Direction::kForward;
  Mode mode = Mode::kLinear;
  bool antialias = false;
  int spatial_rank = 2;
  uint32_t dtypes = kFloatTypes;  // input and output must have the same one
  // Accepted formats (up to 3; format_count 0: any, dims read as N, C, spatial).
  aclFormat formats[3] = {ACL_FORMAT_UNDEFINED, ACL_FORMAT_UNDEFINED, ACL_FORMAT_UNDEFINED};
  int format_count = 0;
  bool formats_equal = false;      // input and output must have the same format
  bool batch_may_be_empty = true;  // N = 0 gives an empty executor (else 161002)
  bool has_align_corners = false;
  ScaleRule scale_rule = ScaleRule::kPerAxis;
  bool float_scales = false;            // the scale parameters are float (V2 nearest)
  bool reject_negative_scales = false;  // a scale < 0 is an error rather than "not given"
  InputSizeOrder input_size_order = InputSizeOrder::kLogical;
  const char* in_name = "self";  // CANN parameter names, used in messages
  const char* out_name = "out";
};

namespace rows {

constexpr EntryRow make(const char* name, Direction dir, Mode mode, int rank, uint32_t dtypes,
                        std::initializer_list<aclFormat> formats) {
  EntryRow r{name};
  r.direction = dir;
  r.mode = mode;
  r.spatial_rank = rank;
  r.dtypes = dtypes;
  for (aclFormat f : formats) r.formats[r.format_count++] = f;
  r.has_align_corners = mode == Mode::kLinear || mode == Mode::kCubic;
  if (dir == Direction::kBackward) r.in_name = "gradOut";
  return r;
}

constexpr Direction kF = Direction::kForward;
constexpr Direction kB = Direction::kBackward;
constexpr aclFormat kNCL = ACL_FORMAT_NCL, kND = ACL_FORMAT_ND, kNCHW = ACL_FORMAT_NCHW,
                    kNHWC = ACL_FORMAT_NHWC, kNCDHW = ACL_FORMAT_NCDHW, kNDHWC = ACL_FORMAT_NDHWC;

// Each row starts from make() and states what differs, in the order of docs/ops.md.
constexpr EntryRow with(EntryRow r, auto&&... edits) {
  (edits(r), ...);
  return r;
}
constexpr auto equal_formats = [](EntryRow& r) { r.formats_equal = true; };
constexpr auto no_empty_batch = [](EntryRow& r) { r.batch_may_be_empty = false; };
constexpr auto no_negative_scales = [](EntryRow& r) { r.reject_negative_scales = true; };
constexpr auto all_or_none = [](EntryRow& r) { r.scale_rule = ScaleRule::kAllOrNone; };
constexpr auto no_scales = [](EntryRow& r) { r.scale_rule = ScaleRule::kNone; };
constexpr auto float_scales = [](EntryRow& r) { r.float_scales = true; };
constexpr auto antialias = [](EntryRow& r) { r.antialias = true; };
constexpr auto by_out_format = [](EntryRow& r) {
  r.input_size_order = InputSizeOrder::kByOutFormat;
};
constexpr auto by_grad_format = [](EntryRow& r) {
  r.input_size_order = InputSizeOrder::kByGradFormat;
};
constexpr auto in_named(const char* n) {
  return [n](EntryRow& r) { r.in_name = n; };
}
constexpr auto out_named(const char* n) {
  return [n](EntryRow& r) { r.out_name = n; };
}

}  // namespace rows

// The rows, in the order of docs/ops.md's families. Rules follow CANN's code, with the
// deliberate deviations listed in docs/compat.md.
inline constexpr EntryRow kEntryRows[] = {
    // ---- linear, bilinear, trilinear
    rows::make("aclnnUpsampleLinear1d", rows::kF, Mode::kLinear, 1, kFloatTypes, {}),
    rows::make("aclnnUpsampleLinear1dBackward", rows::kB, Mode::kLinear, 1, kFloatTypes, {}),
    rows::with(rows::make("aclnnUpsampleBilinear2d", rows::kF, Mode::kLinear, 2, kFloatTypes,
                          {rows::kNCHW, rows::kNHWC}),
               rows::equal_formats, rows::no_negative_scales),
    rows::with(
        rows::make("aclnnUpsampleBilinear2dBackward", rows::kB, Mode::kLinear, 2, kFloatTypes,
                   {rows::kNCHW, rows::kNHWC}),
        [](EntryRow& r) { r.scale_rule = ScaleRule::kIgnored; }, rows::by_out_format),
    rows::with(rows::make("aclnnUpsampleBilinear2dBackwardV2", rows::kB, Mode::kLinear, 2,
                          kFloatTypes, {rows::kNCHW, rows::kNHWC}),
               rows::by_grad_format),
    rows::with(rows::make("aclnnUpsampleTrilinear3d", rows::kF, Mode::kLinear, 3, kFloatTypes,
                          {rows::kND, rows::kNCDHW, rows::kNDHWC}),
               rows::all_or_none),
    rows::with(rows::make("aclnnUpsampleTrilinear3dBackward", rows::kB, Mode::kLinear, 3,
                          kFloatTypes, {rows::kND, rows::kNCDHW, rows::kNDHWC}),
               rows::all_or_none, rows::out_named("gradInput")),
    // ---- nearest
    rows::with(rows::make("aclnnUpsampleNearest1d", rows::kF, Mode::kNearest, 1, kFloatAndUInt8,
                          {rows::kNCL}),
               rows::equal_formats, rows::no_scales),
    rows::with(rows::make("aclnnUpsampleNearest2d", rows::kF, Mode::kNearest, 2, kFloatAndUInt8,
                          {rows::kNCHW, rows::kNHWC}),
               rows::equal_formats, rows::no_scales),
    rows::with(rows::make("aclnnUpsampleNearest1dV2", rows::kF, Mode::kNearest, 1, kFloatAndUInt8,
                          {rows::kNCL}),
               rows::equal_formats, rows::float_scales),
    rows::with(rows::make("aclnnUpsampleNearest2dV2", rows::kF, Mode::kNearest, 2, kFloatAndUInt8,
                          {rows::kNCHW, rows::kNHWC}),
               rows::equal_formats, rows::float_scales),
    rows::with(rows::make("aclnnUpsampleNearest3d", rows::kF, Mode::kNearest, 3, kFloatAndUInt8,
                          {rows::kNCDHW, rows::kNDHWC, rows::kND}),
               rows::all_or_none),
    rows::make("aclnnUpsampleNearest1dBackward", rows::kB, Mode::kNearest, 1, kFloatTypes,
               {rows::kNCL, rows::kND}),
    rows::with(rows::make("aclnnUpsampleNearest2dBackward", rows::kB, Mode::kNearest, 2,
                          kFloatTypes, {rows::kNCHW, rows::kNHWC}),
               rows::out_named("gradInput"), rows::by_grad_format),
    rows::with(rows::make("aclnnUpsampleNearest3dBackward", rows::kB, Mode::kNearest, 3,
                          kFloatTypes, {}),  // CANN: other formats read as NCDHW
               rows::out_named("gradInput"), rows::all_or_none),
    // ---- nearest-exact
    rows::with(rows::make("aclnnUpsampleNearestExact1d", rows::kF, Mode::kNearestExact, 1,
                          kFloatAndUInt8, {rows::kNCL, rows::kND}),
               rows::no_empty_batch),
    rows::with(rows::make("aclnnUpsampleNearestExact2d", rows::kF, Mode::kNearestExact, 2,
                          kFloatAndUInt8, {rows::kNCHW, rows::kNHWC, rows::kND}),
               rows::equal_formats),
    rows::make("aclnnUpsampleNearestExact3d", rows::kF, Mode::kNearestExact, 3, kFloatAndUInt8,
               {rows::kNCDHW, rows::kNDHWC, rows::kND}),
    rows::with(rows::make("aclnnUpsampleNearestExact1dBackward", rows::kB, Mode::kNearestExact, 1,
                          kFloatTypes, {rows::kNCL, rows::kND}),
               rows::in_named("gradOutput"), rows::equal_formats, rows::no_negative_scales,
               rows::no_empty_batch),
    rows::with(rows::make("aclnnUpsampleNearestExact2dBackward", rows::kB, Mode::kNearestExact, 2,
                          kFloatTypes, {rows::kNCHW, rows::kND}),
               rows::in_named("gradOutput"), rows::equal_formats, rows::no_negative_scales),
    rows::with(rows::make("aclnnUpsampleNearestExact3dBackward", rows::kB, Mode::kNearestExact, 3,
                          kFloatTypes, {rows::kNCDHW, rows::kNDHWC}),
               rows::out_named("gradInput")),
    // ---- bicubic and antialias
    rows::with(rows::make("aclnnUpsampleBicubic2d", rows::kF, Mode::kCubic, 2, kFloatTypes,
                          {rows::kNCHW, rows::kND, rows::kNHWC}),
               rows::equal_formats),
    rows::with(rows::make("aclnnUpsampleBicubic2dBackward", rows::kB, Mode::kCubic, 2, kFloatTypes,
                          {rows::kNCHW, rows::kND, rows::kNHWC}),
               rows::out_named("gradInput"), rows::by_out_format),
    rows::with(rows::make("aclnnUpsampleBilinear2dAA", rows::kF, Mode::kLinear, 2, kFloatTypes,
                          {rows::kNCHW, rows::kND}),
               rows::antialias, rows::in_named("input"), rows::equal_formats,
               rows::no_negative_scales, rows::no_empty_batch),
    rows::with(rows::make("aclnnUpsampleBilinear2dAABackward", rows::kB, Mode::kLinear, 2,
                          kFloatTypes, {rows::kNCHW, rows::kND}),
               rows::antialias, rows::in_named("gradOutput"), rows::equal_formats,
               rows::no_negative_scales),
    // CANN checks each format against {ND, NCHW} without requiring them equal, does not reject
    // negative scales (they mean "not given") and accepts an empty batch.
    rows::with(rows::make("aclnnUpsampleBicubic2dAA", rows::kF, Mode::kCubic, 2, kFloatTypes,
                          {rows::kNCHW, rows::kND}),
               rows::antialias, rows::in_named("x")),
    rows::with(rows::make("aclnnUpsampleBicubic2dAAGrad", rows::kB, Mode::kCubic, 2, kFloatTypes,
                          {rows::kNCHW, rows::kND}),
               rows::antialias, rows::in_named("gradOutput"), rows::equal_formats,
               rows::no_negative_scales, rows::no_empty_batch),
    // ---- resize: a mode string and float scales per dim that must agree with the shapes; the
    // coordinate ratio comes from the sizes.
    rows::with(
        rows::make("aclnnResize", rows::kF, Mode::kNearest, 2, kFloatTypes,
                   {rows::kNCHW, rows::kNHWC}),
        [](EntryRow& r) { r.variant = "nearest"; }, rows::equal_formats,
        [](EntryRow& r) { r.scale_rule = ScaleRule::kIgnored; }),
    rows::with(
        rows::make("aclnnResize", rows::kF, Mode::kLinear, 2, kFloatTypes,
                   {rows::kNCHW, rows::kNHWC}),
        [](EntryRow& r) {
          r.variant = "bilinear";
          r.has_align_corners = false;  // half-pixel centres, align_corners = false
        },
        rows::equal_formats, [](EntryRow& r) { r.scale_rule = ScaleRule::kIgnored; }),
};

// The scales a row resamples with, given the ones it was called with (per spatial axis, D, H, W;
// <= 0 means "not given"): the row's ScaleRule applied.
constexpr std::array<double, 3> effective_scales(const EntryRow& row,
                                                 const std::array<double, 3>& given) {
  switch (row.scale_rule) {
    case ScaleRule::kPerAxis:
      return given;
    case ScaleRule::kAllOrNone:
      for (int a = 0; a < row.spatial_rank; ++a) {
        if (!(given[a] > 0.0)) return {0.0, 0.0, 0.0};
      }
      return given;
    case ScaleRule::kNone:
    case ScaleRule::kIgnored:
      break;
  }
  return {0.0, 0.0, 0.0};
}

// The row of `name` (and `variant`, for aclnnResize); nullptr if there is none.
constexpr const EntryRow* find_entry(std::string_view name, std::string_view variant = {}) {
  for (const EntryRow& r : kEntryRows) {
    if (name == r.name && (r.variant == nullptr || variant == r.variant)) return &r;
  }
  return nullptr;
}

// A row known to exist (a compile-time check: an unknown name does not compile).
consteval const EntryRow& entry(std::string_view name, std::string_view variant = {}) {
  const EntryRow* r = find_entry(name, variant);
  if (r == nullptr) throw "unknown entry point";
  return *r;
}

}  // namespace upsample::aclnn
